#!/usr/bin/env python3
"""A raw-mode REPL for tests: it reads its terminal a key at a time and echoes each key
itself, as a readline program does (the terminal's own echo is off).

    python tests/agents/raw_repl.py --log FILE

Prints `raw> `, echoes printable keys, takes Ctrl-U as clearing the line and Enter as
its end; each line is appended to the log as `{"line": ..., "t": <unix time>}` (the
scripted agent's format) and answered with `got: <line>`. Stdlib only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import termios
import time
import tty
from pathlib import Path

PROMPT = "raw> "
PASTE_MARKS = ("\x1b[200~", "\x1b[201~")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--log", type=Path, required=True)
    log = parser.parse_args().log
    saved = termios.tcgetattr(0)
    tty.setraw(0)
    try:
        line = ""
        os.write(1, PROMPT.encode())
        while (key := os.read(0, 64).decode(errors="replace")):
            for mark in PASTE_MARKS:
                key = key.replace(mark, "")
            for char in key:
                if char in "\r\n":
                    with log.open("a", encoding="utf-8") as handle:
                        handle.write(json.dumps({"line": line, "t": time.time()}) + "\n")
                    os.write(1, f"\r\ngot: {line}\r\n{PROMPT}".encode())
                    line = ""
                elif char == "\x15":  # Ctrl-U
                    line = ""
                    os.write(1, f"\r\x1b[K{PROMPT}".encode())
                elif char == "\x03":  # Ctrl-C
                    return 0
                elif char.isprintable():
                    line += char
                    os.write(1, char.encode())
    finally:
        termios.tcsetattr(0, termios.TCSADRAIN, saved)
    return 0


if __name__ == "__main__":
    sys.exit(main())
