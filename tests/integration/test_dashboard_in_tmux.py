"""`up` puts the dashboard beside the session panes; focusing a session moves tmux focus."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rooms import live_room
from tests.waiting import wait_until
from workers.tmux.layout import DASHBOARD, pane_of

pytestmark = pytest.mark.slow


def active_pane(server) -> str:
    out = server.check("list-panes", "-t", "=bullpen:", "-F", "#{pane_active} #{pane_id}")
    return next(line.split()[1] for line in out.splitlines() if line.startswith("1 "))


def test_dashboard_beside_sessions_and_focus_follows(git_repo: Path, tmp_path: Path) -> None:
    (git_repo / "bullpen.yaml").write_text(
        "agent: cat\nsessions:\n  alice: {task: write the plan}\n  bob: {after: [alice]}\n")
    with live_room(git_repo, tmp_path / "logs") as room:
        room.cli("up", "--detach")
        server = room.server
        dashboard = pane_of(server, DASHBOARD)
        rows = room.sessions()
        window_panes = server.check("list-panes", "-t", "=bullpen:", "-F", "#{pane_id}").split()
        assert {dashboard, rows["alice"]["pane"], rows["bob"]["pane"]} == set(window_panes)
        wait_until(lambda: "bob" in server.capture(dashboard) and "alice" in
                   server.capture(dashboard), 20, message="the dashboard to list sessions")
        # Each key, then what it visibly did: the app is a real terminal program.
        server.check("send-keys", "-t", dashboard, "1")  # the sessions panel
        wait_until(lambda: "Restart" in server.capture(dashboard), 10,  # its footer keys
                   message="the sessions panel to take focus")
        wait_until(lambda: _select_bob(server, dashboard), 10,
                   message=lambda: f"bob selected: {server.capture(dashboard)}")
        server.check("send-keys", "-t", dashboard, "f")  # focus its pane
        wait_until(lambda: active_pane(server) == rows["bob"]["pane"], 10,
                   message=lambda: f"bob's pane active, not {active_pane(server)}")


def _select_bob(server, dashboard: str) -> bool:
    if "sessions 2 · bob" in server.capture(dashboard):  # the panel's title names the row
        return True
    server.check("send-keys", "-t", dashboard, "Down")
    return False


def test_the_dashboard_restarts_a_dead_coordinator(git_repo: Path, tmp_path: Path) -> None:
    import os
    import signal

    from workers.coordinator.loop import is_running

    # `cat` is a generic program: bullpen types into it only when told to (issue 11).
    (git_repo / "bullpen.yaml").write_text("agent: cat\nsessions:\n  alice: {deliver: type}\n")
    with live_room(git_repo, tmp_path / "logs") as room:
        room.cli("up", "--detach")
        lock = room.home / "coordinator.lock"
        first = int(lock.read_text().split()[0])
        os.kill(first, signal.SIGKILL)
        wait_until(lambda: is_running(room.home) and int(lock.read_text().split()[0]) != first,
                   20, message="the dashboard to start a new coordinator")
        room.cli("note", "send", "alice", "delivered by the revived coordinator")
        wait_until(lambda: "revived coordinator" in room.pane_text("alice"), 15,
                   message="the note typed into alice's pane")
