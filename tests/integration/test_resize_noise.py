"""A pane resized (a zoom, an attach from another terminal) is redrawn by its program:
that is not work. No working/idle flip is recorded for it (each was an event, a stream
line and an 'active' reset)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from board import events
from board.vocabulary import EventKind
from tests.rooms import live_room
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

REDRAWS = """\
import os, signal, sys
def redraw(*_):
    sys.stdout.write("\\033[2J\\033[H" + f"cols {os.get_terminal_size().columns}\\n> ")
    sys.stdout.flush()
signal.signal(signal.SIGWINCH, redraw)
redraw()
for line in sys.stdin:
    sys.stdout.write(f"got {line.strip()}\\n> ")
    sys.stdout.flush()
"""


def test_a_zoom_redraw_records_no_status_flip(git_repo: Path, tmp_path: Path) -> None:
    program = tmp_path / "redraws.py"
    program.write_text(REDRAWS)
    agent = shlex.join([sys.executable, str(program)])
    with live_room(git_repo, tmp_path / "logs") as room:
        room.cli("spawn", "py", "--agent", agent, "--deliver", "type", "--no-dashboard")
        room.cli("spawn", "js", "--agent", "cat", "--no-dashboard")  # a pane beside it
        room.wait_status("py", "idle")
        pane = room.sessions()["py"]["pane"]
        width = room.server.check("display-message", "-p", "-t", pane, "#{pane_width}")
        with room.db() as conn:
            mark = max((e.id for e in events.since(conn, 0, limit=100_000)), default=0)
        room.server.check("resize-pane", "-Z", "-t", pane)  # zoomed: it redraws
        wait_until(lambda: f"cols {int(width)}" not in room.server.capture(pane)
                   and "cols " in room.server.capture(pane), 10,
                   message=lambda: f"the redraw: {room.server.capture(pane)!r}")
        room.cli("note", "send", "py", "after the zoom")  # typed once py is idle
        wait_until(lambda: "got " in room.server.capture(pane), 20,
                   message=lambda: f"the note typed: {room.server.capture(pane)!r}")
        with room.db() as conn:
            seen = events.since(conn, mark, limit=100_000)
        typed = next(e.id for e in seen if e.kind == EventKind.NOTES_DELIVERED)
        flips = [e.data.get("status") for e in seen
                 if e.kind == EventKind.SESSION_STATUS and e.session == "py" and e.id < typed]
        assert "idle" not in flips, flips  # it never left idle before the note was typed
