#!/usr/bin/env python3
"""A stand-in agent that outlives its terminal's hangup, as Hermes does while it finishes.

    python tests/agents/hangup_agent.py STATE_FILE (--ignore | --finish-after SECONDS)

It writes `pid PID` to STATE_FILE and prints a prompt. On SIGHUP it either ignores the
signal for good (`--ignore`), or keeps going for SECONDS and then appends `finished`
and exits 0 (`--finish-after`), like a program cleaning up before it leaves. Each
signal it receives is appended too (`got SIGTERM`). It forks one child into its own
process group, which sleeps; `child PID` is written for it. Stdlib only.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("state", type=Path)
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument("--ignore", action="store_true")
    how.add_argument("--finish-after", type=float)
    args = parser.parse_args()
    state: Path = args.state

    def note(line: str) -> None:
        with state.open("a") as out:
            out.write(line + "\n")

    hung_up: list[float] = []

    def on_hangup(signum: int, frame: object) -> None:
        note("got SIGHUP")
        if args.finish_after is not None:
            hung_up.append(time.monotonic())

    def on_term(signum: int, frame: object) -> None:
        note("got SIGTERM")  # and carries on: only SIGKILL ends it

    signal.signal(signal.SIGHUP, on_hangup)
    signal.signal(signal.SIGTERM, on_term if args.ignore else signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # its terminal is gone: writes fail
    child = os.fork()
    if child == 0:  # a child in the same process group, as an agent's tool would be
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        while True:
            time.sleep(1)
    note(f"pid {os.getpid()}")
    note(f"child {child}")
    with contextlib.suppress(OSError):
        print("stand-in> ", end="", flush=True)
    while True:
        if hung_up and time.monotonic() - hung_up[0] >= args.finish_after:
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
            note("finished")
            return 0
        time.sleep(0.05)


if __name__ == "__main__":
    sys.exit(main())
