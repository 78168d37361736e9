"""`bullpen dashboard` is registered, and other commands never import Textual."""

from __future__ import annotations

import subprocess
import sys

from board.room import Room
from tests.cli_runner import run_cli


def test_note_send_does_not_import_textual() -> None:
    code = ("import sys; from tui.cli import build_parser; build_parser();"
            " print('textual' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "False"


def test_dashboard_command_is_registered() -> None:
    from tui.cli import build_parser

    args = build_parser().parse_args(["dashboard"])
    assert args.handler.__name__ == "run_dashboard"


def test_dashboard_refuses_a_non_terminal_in_one_line(room: Room) -> None:
    """Piped (`bullpen dashboard | cat`, a script), it ran for ever writing escape codes."""
    done = run_cli("dashboard", cwd=room.home.parent, timeout=20)
    assert done.returncode == 2, done
    assert done.stdout == "" and "\x1b" not in done.stderr
    assert done.stderr.strip().count("\n") == 0 and "needs a terminal" in done.stderr
