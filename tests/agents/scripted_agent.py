#!/usr/bin/env python3
"""A scripted stand-in for an LLM agent, run in a tmux pane by tests and the demo.

    python tests/agents/scripted_agent.py --log FILE [--script FILE]
                                          [--exit-after N --exit-code C]

It asks for bracketed paste like a real TUI agent, prints `agent> `, reads lines from
its terminal, strips the paste markers, appends each line to the log as one JSON object
`{"line": ..., "t": <unix time>}` and prints `got: <line>`.

The script (optional) is a file of JSON objects, one a line (blank and `#` lines are
skipped), each an action with a trigger:

    {"on": "^review (?P<sha>\\w+)", "run": ["bullpen", "note", "send", "a", "saw {sha}"]}
    {"on": "deploy", "say": "Allow deploy to prod? (y/n)"}
    {"on": "^bye$", "exit": 4}
    {"on": "<start>", "say": "ready"}

`on` is a regular expression searched in each received line (`<start>`: once, at
startup). `run` is an argv run with the agent's environment (so BULLPEN_SESSION and
BULLPEN_TOKEN pass through), its output echoed; `{line}` and the regex's named groups
are substituted in each argument. `say` prints text; `exit` exits with that status.
Every matching action runs, in file order. Stdlib only.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
START = "<start>"


def command_line(log: Path, *extra: str, python: str = sys.executable) -> str:
    """The shell command that runs this agent (for a tmux pane) logging to `log`."""
    return shlex.join([python, str(Path(__file__).resolve()), "--log", str(log), *extra])


def load_script(path: Path | None) -> list[dict[str, Any]]:
    """The actions in `path`, each with its compiled trigger under `re`."""
    if path is None:
        return []
    actions = []
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        action = json.loads(raw)
        if "on" not in action:
            sys.exit(f"{path}:{number}: an action needs an 'on' trigger")
        action["re"] = None if action["on"] == START else re.compile(action["on"])
        actions.append(action)
    return actions


def substitute(arg: str, values: dict[str, str]) -> str:
    """Replace `{name}` for each known name; other braces stay as they are."""
    for name, value in values.items():
        arg = arg.replace("{" + name + "}", value)
    return arg


def perform(action: dict[str, Any], values: dict[str, str]) -> None:
    """Run one action: `say`, then `run`, then `exit`."""
    if "say" in action:
        print(substitute(action["say"], values), flush=True)
    if "run" in action:
        argv = [substitute(str(arg), values) for arg in action["run"]]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, check=False)
        except OSError as error:
            print(f"run failed: {error}", flush=True)
        else:
            sys.stdout.write(done.stdout + done.stderr)
            print(f"[exit {done.returncode}]", flush=True)
    if "exit" in action:
        sys.exit(int(action["exit"]))


def react(actions: list[dict[str, Any]], line: str) -> None:
    """Perform every action whose trigger matches `line`."""
    for action in actions:
        match = action["re"].search(line) if action["re"] is not None else None
        if match:
            values = {k: v or "" for k, v in match.groupdict().items()}
            perform(action, {"line": line, **values})


def record(log: Path, line: str) -> None:
    """Append one received line to the log (opened per line: readers see it at once)."""
    with log.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"line": line, "t": time.time()}, ensure_ascii=False) + "\n")


def main(argv: list[str] | None = None) -> int:
    """Run the agent loop until EOF, `--exit-after` lines, or an `exit` action."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("--script", type=Path)
    parser.add_argument("--exit-after", type=int, default=0, metavar="N")
    parser.add_argument("--exit-code", type=int, default=0, metavar="C")
    parser.add_argument("--prompt", default="agent> ")
    parser.add_argument("--no-bracketed-paste", action="store_true")
    args = parser.parse_args(argv)
    actions = load_script(args.script)
    paste = not args.no_bracketed_paste and sys.stdout.isatty()
    if paste:
        sys.stdout.write("\x1b[?2004h")  # ask the terminal for bracketed paste
    try:
        for action in actions:
            if action["re"] is None:
                perform(action, {"line": ""})
        received = 0
        while True:
            sys.stdout.write(args.prompt)
            sys.stdout.flush()
            raw = sys.stdin.readline()
            if not raw:
                return 0
            line = raw.rstrip("\r\n").replace(PASTE_START, "").replace(PASTE_END, "")
            record(args.log, line)
            print(f"got: {line}", flush=True)
            react(actions, line)
            received += 1
            if args.exit_after and received >= args.exit_after:
                return args.exit_code
    finally:
        if paste:
            sys.stdout.write("\x1b[?2004l")
            sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
