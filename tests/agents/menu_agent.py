#!/usr/bin/env python3
"""A stand-in installed as `claude` that asks one permission question and keeps the keys.

    menu_agent.py --log FILE [claude's own flags, ignored]

`--version` says it is Claude Code 2.1.332. Otherwise it draws that release's permission
prompt (tests/fixtures/screens/claude_2_1_332_permission_prompt.screen, "Do you want to
proceed?" with four numbered choices), reads its terminal raw as Claude does, moves the
selector on Up and Down, and on Enter logs {"answer": NUMBER, "keys": [...]} (every key
it got, in order) and shows the idle prompt. Stdlib only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import termios
import time
import tty
from pathlib import Path

SCREEN = (Path(__file__).resolve().parents[1] / "fixtures" / "screens"
          / "claude_2_1_332_permission_prompt.screen")
CHOICE = re.compile(r"^ (❯| ) (\d+)\. ")
KEYS = {b"\x1b[A": "Up", b"\x1b[B": "Down", b"\r": "Enter", b"\n": "Enter"}
RULE = "─" * 60


def draw(lines: list[str], cursor: tuple[int, int]) -> None:
    out = "\x1b[H\x1b[2J" + "\r\n".join(lines) + f"\x1b[{cursor[1] + 1};{cursor[0] + 1}H"
    sys.stdout.write(out)
    sys.stdout.flush()


def prompt(selected: int) -> tuple[list[str], tuple[int, int]]:
    header, text = SCREEN.read_text().split("\n", 1)
    lines = text.rstrip("\n").split("\n")
    rows = [index for index, line in enumerate(lines) if CHOICE.match(line)]
    for place, index in enumerate(rows):
        mark = "❯" if place == selected else " "
        lines[index] = f" {mark} " + lines[index][3:]
    return lines, tuple(json.loads(header)["cursor"])  # type: ignore[return-value]


def log(path: Path, **row: object) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({**row, "t": time.time()}) + "\n")


def main() -> int:
    if "--version" in sys.argv:
        print("2.1.332 (Claude Code)")
        return 0
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", type=Path, required=True)
    args, _ = parser.parse_known_args()
    count = sum(1 for line in SCREEN.read_text().splitlines() if CHOICE.match(line))
    selected, keys = 0, []
    old = termios.tcgetattr(0)
    tty.setraw(0)
    try:
        draw(*prompt(selected))
        while True:
            chunk = os.read(0, 64)
            if not chunk:
                return 0
            while chunk:
                key = next((k for k in KEYS if chunk.startswith(k)), chunk[:1])
                chunk = chunk[len(key):]
                name = KEYS.get(key, key.decode(errors="replace"))
                keys.append(name)
                if name == "Up":
                    selected = max(0, selected - 1)
                elif name == "Down":
                    selected = min(count - 1, selected + 1)
                elif name == "Enter":
                    log(args.log, answer=selected + 1, keys=keys)
                    draw(["", RULE, "❯\u00a0", RULE, "  ? for shortcuts"], (2, 2))
                    keys = []
                    continue
                draw(*prompt(selected))
    finally:
        termios.tcsetattr(0, termios.TCSADRAIN, old)


if __name__ == "__main__":
    sys.exit(main())
