#!/usr/bin/env python3
"""A stand-in for a full-screen agent's dialogs, spinner and prompt, for delivery tests.

    standin_tui.py --log FILE --look claude|hermes --steps STEP[,STEP…]

It draws what the real program draws (the frames come from tests/fixtures/screens:
Claude Code 2.1.197 and Hermes 0.19.0) and reads its terminal in cooked mode, so
whatever reaches it is echoed where the real one echoes it. Steps, in order:

    dialog:NAME   show fixture NAME (a trust dialog, a permission prompt…) and read one
                  line: the answer; it is logged as {"dialog": NAME, "answer": …}
    idle          show the empty prompt and read one line, logged as {"line": …}
    busy:SECONDS  show a turn running (spinner, timer) for SECONDS, reading nothing

After the last step it stays idle, logging each line. Every log row has "t" (unix
time) and "step". Stdlib only.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "screens"
RULE = "─" * 60
SPINNER = "·✢✳✶✻✽"


def draw(lines: list[str], cursor: tuple[int, int]) -> None:
    """Clear the screen, print `lines`, put the cursor at (x, y)."""
    out = "\x1b[H\x1b[2J" + "\r\n".join(lines) + f"\x1b[{cursor[1] + 1};{cursor[0] + 1}H"
    sys.stdout.write(out)
    sys.stdout.flush()


def fixture(name: str) -> tuple[list[str], tuple[int, int]]:
    header, text = (FIXTURES / f"{name}.screen").read_text().split("\n", 1)
    x, y = json.loads(header)["cursor"]
    return text.rstrip("\n").split("\n"), (x, y)


def idle_frame(look: str) -> tuple[list[str], tuple[int, int]]:
    if look == "claude":
        return ["", RULE, "❯\u00a0", RULE, "  ? for shortcuts"], (2, 2)
    return ["", RULE, "❯ ", RULE], (2, 2)


def busy_frame(look: str, tick: int) -> tuple[list[str], tuple[int, int]]:
    if look == "claude":
        return (["", f"{SPINNER[tick % len(SPINNER)]} Photosynthesizing…", "", RULE, "❯\u00a0",
                 RULE, "  esc to interrupt"], (2, 4))
    return ([f" ⚕ stub-model │ ⏱ {tick // 5}s {'.' * (tick % 4)}", RULE,
             "⚕ ❯ msg=interrupt · /queue · /bg · /steer · Ctrl+C cancel", RULE], (4, 2))


def record(log: Path, **row: object) -> None:
    with log.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({**row, "t": time.time()}, ensure_ascii=False) + "\n")


def read_line() -> str | None:
    raw = sys.stdin.readline()
    return None if not raw else raw.rstrip("\r\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("--look", choices=("claude", "hermes"), required=True)
    parser.add_argument("--steps", default="idle")
    args, _ = parser.parse_known_args(argv)  # a launcher may add the real agent's flags
    for step in [s for s in args.steps.split(",") if s]:
        kind, _, value = step.partition(":")
        if kind == "dialog":
            draw(*fixture(value))
            answer = read_line()
            if answer is None:
                return 0
            record(args.log, step=step, dialog=value, answer=answer)
        elif kind == "busy":
            until, tick = time.monotonic() + float(value), 0
            while time.monotonic() < until:
                draw(*busy_frame(args.look, tick))
                tick += 1
                time.sleep(0.2)  # the spinner's own pace
            record(args.log, step=step, busy_until=time.time())
        else:
            draw(*idle_frame(args.look))
            line = read_line()
            if line is None:
                return 0
            record(args.log, step=step, line=line)
    while True:
        draw(*idle_frame(args.look))
        line = read_line()
        if line is None:
            return 0
        record(args.log, step="idle", line=line)


if __name__ == "__main__":
    sys.exit(main())
