"""The `bullpen` command line: thin commands over the library packages.

Every module in this package named `*_commands` contributes commands through a
`register(subparsers)` function, so parts of the CLI can grow independently. Heavy
imports (Textual, GitPython, the tmux driver) happen inside the handlers that need them, which
keeps `bullpen note send` close to the interpreter's own start-up time.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs an agent's hook 3 ms
if TYPE_CHECKING:
    import argparse

PROG = "bullpen"

# Which module registers each command, so a command loads only its own module: agents
# call `bullpen hook` and `bullpen note` on every turn. The order is the order of
# `bullpen --help`: what a user meets first comes first. A test keeps this table true.
COMMANDS = {
    "init": "init_commands", "up": "session_commands", "down": "session_commands",
    "demo": "demo_commands", "spawn": "session_commands", "ls": "session_commands",
    "stop": "session_commands", "rm": "session_commands", "restart": "session_commands",
    "questions": "answer_commands", "answer": "answer_commands",
    "serve": "serve_commands",
    "attach": "session_commands", "dashboard": "dashboard_commands",
    "note": "note_commands", "notebook": "notebook_commands", "task": "task_commands",
    "read": "read_commands", "alerts": "read_commands",
    "diff": "change_commands", "sync": "change_commands",
    "land": "land_commands", "conflicts": "land_commands",
    "register": "init_commands", "mcp": "agent_commands", "hook": "agent_commands",
    "hooks": "agent_commands", "hermes": "agent_commands", "plan": "plan_commands",
    "spend": "spend_commands", "budget": "spend_commands",
    "audit": "audit_commands", "doctor": "doctor_commands", "notify": "notify_commands",
    "coordinator": "session_commands",
    "room": "machine_commands", "machines": "machine_commands",
    "help": "help_commands",
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full parser, or (with `only`) one holding just that command's module."""
    from tui.cli.parser import build_parser as build

    return build(only)


def command_modules() -> list[str]:
    """The `*_commands` modules of this package, in name order."""
    from tui.cli.parser import command_modules as modules

    return modules()


def main(argv: Sequence[str] | None = None) -> int:
    # Without `argv`, as the `bullpen` command calls it, this call is the whole process:
    # the hot paths below then end it themselves (board.room.end_process).
    whole_process = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv == ["--version"]:  # no parser and no command module to say it (issue 34)
        from tui.cli.version import version

        print(f"{PROG} {version()}")
        return 0
    if len(argv) == 2 and argv[0] == "hook" and not argv[1].startswith("-"):
        # An agent runs this after every tool call: no argparse, no command modules.
        from workers.surfaces.hook_entry import main as run_hook

        return run_hook(argv[1], ends_process=whole_process)
    from board.errors import BullpenError
    from tui.cli.output import fail

    handler, args = _plain_note_send(argv) if argv[:2] == ["note", "send"] else (None, None)
    ends_here = handler is not None and whole_process  # agents send notes on every turn
    if ends_here:
        from board import room

        room.leave_stores_open()
    if handler is None:
        first = next((word for word in argv if not word.startswith("-")), None)
        parser = build_parser(only=first if argv and argv[0] == first else None)
        args = parser.parse_args(argv)
        handler = getattr(args, "handler", None)
        if handler is None:
            parser.print_help()
            return 2
    try:
        status = handler(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except BullpenError as error:  # the one error root: every layer's typed errors
        fail(f"bullpen: {error}", error.exit_status)
    except Exception as error:
        message, exit_status = _untyped(error)
        fail(f"bullpen: {message}", exit_status)
    if ends_here:
        room.end_process(int(status or 0))
    return int(status or 0)


def _plain_note_send(argv: list[str]) -> tuple:
    """`note send TO TEXT...` without options: its handler and arguments, argparse not
    built (agents send notes on every turn; building the parser was a tenth of it)."""
    from tui.cli.note_commands import SendArgs, send_note

    args = SendArgs.plain(argv[2:])
    return (send_note, args) if args is not None else (None, None)


def _untyped(error: Exception) -> tuple[str, int]:
    """One line and an exit status for a failure no layer typed: never a traceback.

    BULLPEN_DEBUG=1 re-raises it, for the traceback a bug report needs.
    """
    if os.environ.get("BULLPEN_DEBUG"):
        raise error
    import errno
    import sqlite3

    if isinstance(error, UnicodeError):  # surrogate-escaped bytes that are not UTF-8
        return "an argument or input is not valid UTF-8; pass text in UTF-8", 2
    if isinstance(error, sqlite3.Error):
        from board.db import describe_fault

        return describe_fault(error), 1
    if isinstance(error, OSError):
        name = str(error.filename or "")
        where = f" ({name[:80]}{'…' if len(name) > 80 else ''})" if name else ""
        # A name the OS cannot take is the caller's input; anything else is a fault.
        status = 2 if error.errno == errno.ENAMETOOLONG else 1
        return f"{error.strerror or error}{where}", status
    return (f"unexpected {type(error).__name__}: {' '.join(str(error).split())}"
            " (rerun with BULLPEN_DEBUG=1 for details)"), 1


if __name__ == "__main__":
    sys.exit(main())
