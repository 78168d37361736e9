"""`bullpen dashboard` is registered, and other commands never import Textual."""

from __future__ import annotations

import subprocess
import sys


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
