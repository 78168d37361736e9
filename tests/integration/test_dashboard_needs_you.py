"""Through `bullpen up` in a 200×50 terminal: the dashboard pane shows a 30-character title
whole, and a session that asks a question shows in the needs-you strip and in the room's
tmux status line within 2 s of the store recording it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.rooms import live_room
from tests.waiting import wait_until
from workers.tmux.layout import DASHBOARD, ROOM_SESSION, pane_of

pytestmark = pytest.mark.slow

TITLE = "Write the usage endpoint tests"  # 30 characters
PLAN = """agent: cat
sessions:
  alice: {}
  bob:
    agent: "python3 -c \\"input('Deploy to production? (y/n) '); input()\\""
"""


def _status_line(server) -> str:  # noqa: ANN001 - the room's RoomServer
    return server.check("show-options", "-v", "-t", ROOM_SESSION, "status-right")


def _strip_count(screen: str) -> int | None:
    found = re.search(r"needs you (\d+)", screen)
    return int(found.group(1)) if found else None


def _counted(count: int | None) -> str:
    """What the status line says for `count`: "1 needs you", "3 need you"."""
    return f"{count} {'needs' if count == 1 else 'need'} you"


def test_needs_you_reaches_the_strip_and_the_status_line(git_repo: Path,
                                                         tmp_path: Path) -> None:
    (git_repo / "bullpen.yaml").write_text(PLAN)
    with live_room(git_repo, tmp_path / "logs") as room:
        room.cli("up", "--detach")
        room.cli("task", "add", TITLE, "--assign", "alice")
        server = room.server
        server.check("resize-window", "-t", f"={ROOM_SESSION}:", "-x", "200", "-y", "50")
        dashboard = pane_of(server, DASHBOARD)
        width = int(server.check("display-message", "-p", "-t", dashboard, "#{pane_width}"))
        assert 80 <= width <= 100, width  # the side-by-side layout's share of 200 columns
        wait_until(lambda: TITLE in server.capture(dashboard), 20,
                   message=lambda: f"the whole title in:\n{server.capture(dashboard)}")
        room.wait_status("bob", "needs_input", timeout=20)
        # Deadlines for a loaded machine; how fast it is drawn is measured in bench/
        # (dashboard_bench: a commit drawn), not asserted here.
        wait_until(lambda: "bob needs input" in server.capture(dashboard)
                   or "bob asks:" in server.capture(dashboard), 10,
                   message=lambda: f"bob in the strip:\n{server.capture(dashboard)}")
        # The status line counts what the strip lists (alice's held notes too: `cat`
        # is never typed into without `deliver: type`).
        wait_until(lambda: _counted(_strip_count(server.capture(dashboard)))
                   in _status_line(server), 10,
                   message=lambda: f"the status line {_status_line(server)!r} to count the"
                   f" strip's {_strip_count(server.capture(dashboard))}")
        print(server.capture(dashboard))  # what the pane showed, for the test log
