"""The dashboard is never lost: closed with `q` or killed, `bullpen up` (or `attach`)
puts it back beside the sessions, with its keeper restarting a dead coordinator."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.rooms import LiveRoom, live_room
from tests.waiting import wait_until
from workers.coordinator.lock import running_pid
from workers.tmux.layout import DASHBOARD, pane_of

pytestmark = pytest.mark.slow
PLAN = "agent: cat\nsessions:\n  alice: {deliver: type}\n  bob: {deliver: type}\n"


def panes(room: LiveRoom) -> list[dict[str, str]]:
    """The room window's panes in tmux's order, with where each sits."""
    out = room.server.check("list-panes", "-t", "=bullpen:room", "-F",
                            "#{pane_id} #{pane_left} #{pane_height} #{window_height}"
                            " #{@bullpen_session}")
    return [dict(zip(("id", "left", "height", "window_height", "role"), line.split(), strict=True))
            for line in out.splitlines()]


def assert_dashboard_beside_sessions(room: LiveRoom, session_panes: set[str]) -> str:
    layout = panes(room)
    first = layout[0]
    assert first["role"] == DASHBOARD and first["left"] == "0"
    assert first["height"] == first["window_height"]  # the full-height main pane
    assert {pane["id"] for pane in layout[1:]} == session_panes
    dashboard = first["id"]
    wait_until(lambda: "alice" in room.server.capture(dashboard)
               and "bob" in room.server.capture(dashboard), 30,
               message=lambda: f"the dashboard lists the sessions: "
                               f"{room.server.capture(dashboard)}")
    return dashboard


def started(git_repo: Path, tmp_path: Path):
    (git_repo / "bullpen.yaml").write_text(PLAN)
    return live_room(git_repo, tmp_path / "logs")


def session_panes(room: LiveRoom) -> set[str]:
    return {row["pane"] for row in room.sessions().values()}


def test_q_asks_then_up_puts_the_dashboard_back_beside_the_sessions(
        git_repo: Path, tmp_path: Path) -> None:
    with started(git_repo, tmp_path) as room:
        room.cli("up", "--detach")
        before = session_panes(room)
        dashboard = assert_dashboard_beside_sessions(room, before)
        room.server.check("send-keys", "-t", dashboard, "q")
        wait_until(lambda: "Close the dashboard?" in room.server.capture(dashboard), 10,
                   message="q asks before closing")
        room.server.check("send-keys", "-t", dashboard, "y")
        wait_until(lambda: pane_of(room.server, DASHBOARD) is None, 10,
                   message="the dashboard closed")
        assert session_panes(room) == before  # the room kept running

        assert "already running" in room.cli("up", "--detach").stdout
        assert_dashboard_beside_sessions(room, before)


def test_a_killed_dashboard_comes_back_with_its_coordinator_keeper(
        git_repo: Path, tmp_path: Path) -> None:
    with started(git_repo, tmp_path) as room:
        room.cli("up", "--detach")
        before = session_panes(room)
        dashboard = assert_dashboard_beside_sessions(room, before)
        pid = int(room.server.check("display-message", "-p", "-t", dashboard,
                                    "#{pane_pid}").strip())
        os.kill(pid, signal.SIGKILL)
        wait_until(lambda: pane_of(room.server, DASHBOARD) is None, 10,
                   message="the killed dashboard's pane gone")

        room.cli("up", "--detach")
        assert_dashboard_beside_sessions(room, before)
        # Its keeper is back too: a coordinator killed now is restarted without `up`.
        first = room.kill_coordinator()
        wait_until(lambda: running_pid(room.home) not in (None, first), 30,
                   message="the dashboard's keeper to start a new coordinator")


def test_attach_puts_a_closed_dashboard_back(git_repo: Path, tmp_path: Path) -> None:
    from workers.room.control import RoomControl

    with started(git_repo, tmp_path) as room:
        room.cli("up", "--detach")
        before = session_panes(room)
        room.server.kill_pane(pane_of(room.server, DASHBOARD))
        argv = RoomControl(room.home).attach_command()  # what `bullpen attach` execs
        assert argv[0].endswith("tmux") and "attach-session" in argv
        assert_dashboard_beside_sessions(room, before)


def test_with_one_window_per_session_the_dashboard_window_comes_back_first(
        git_repo: Path, tmp_path: Path) -> None:
    (git_repo / "bullpen.yaml").write_text("layout: windows\n" + PLAN)
    with live_room(git_repo, tmp_path / "logs") as room:
        room.cli("up", "--detach")
        room.server.kill_pane(pane_of(room.server, DASHBOARD))
        room.cli("up", "--detach")
        windows = room.server.check("list-windows", "-t", "=bullpen", "-F",
                                    "#{window_name} #{window_panes}").splitlines()
        assert windows[0] == "room 1" and len(windows) == 3
        assert panes(room)[0]["role"] == DASHBOARD


def test_a_dead_dashboard_pane_kept_by_remain_on_exit_is_started_again(
        git_repo: Path, tmp_path: Path) -> None:
    with started(git_repo, tmp_path) as room:
        room.cli("up", "--detach")
        before = session_panes(room)
        dashboard = assert_dashboard_beside_sessions(room, before)
        room.server.check("set-option", "-p", "-t", dashboard, "remain-on-exit", "on")
        pid = int(room.server.check("display-message", "-p", "-t", dashboard,
                                    "#{pane_pid}").strip())
        os.kill(pid, signal.SIGKILL)
        wait_until(lambda: room.server.check("display-message", "-p", "-t", dashboard,
                                             "#{pane_dead}").strip() == "1", 10,
                   message="the dashboard's pane dead but kept")
        room.cli("up", "--detach")
        assert assert_dashboard_beside_sessions(room, before) == dashboard  # in its place
