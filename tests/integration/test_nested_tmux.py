"""`bullpen attach` (and `up`) from inside the user's own tmux, a real one on a private
socket: the room takes a prefix of its own and says so, so the user's `Ctrl-b` stays
theirs and `Ctrl-a d` leaves the room."""

from __future__ import annotations

import shlex
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli_runner import BULLPEN
from tests.rooms import LiveRoom, live_room
from tests.waiting import wait_until
from workers.tmux import nesting
from workers.tmux.server import RoomServer

pytestmark = pytest.mark.slow
PLAN = "agent: cat\nsessions:\n  alice: {}\n"


@pytest.fixture
def outer(tmp_path: Path) -> Iterator[RoomServer]:
    """The user's own tmux: a server of its own, with tmux's defaults (prefix C-b)."""
    conf = tmp_path / "outer.conf"
    conf.write_text("")
    server = RoomServer(f"outer-{uuid.uuid4().hex[:8]}", config_file=conf)
    try:
        yield server
    finally:
        server.kill_server()


@pytest.fixture
def room(git_repo: Path, tmp_path: Path) -> Iterator[LiveRoom]:
    (git_repo / "bullpen.yaml").write_text(PLAN)
    with live_room(git_repo, tmp_path / "logs") as live:
        live.cli("up", "--detach", "--no-dashboard")
        yield live


def clients(room: LiveRoom) -> list[str]:
    return room.server.check("list-clients", "-F", "#{client_tty}").split()


def option(room: LiveRoom, name: str) -> str:
    return room.server.check("show-options", "-qv", "-t", "=bullpen:", name).strip()


def test_attach_inside_tmux_gives_the_room_its_own_prefix(room: LiveRoom,
                                                          outer: RoomServer) -> None:
    outer.check("new-session", "-d", "-s", "mine", "-x", "200", "-y", "50",
                "-c", str(room.repo), shlex.join([BULLPEN, "attach"]))
    wait_until(lambda: clients(room), 20, message="the room attached inside the outer tmux")
    assert option(room, "prefix") == "C-a"
    assert "Ctrl-a d leaves" in option(room, "status-left")
    active = room.server.check("display-message", "-p", "-t", "=bullpen:",
                               "#{pane_id}").strip()
    user_pane = outer.check("list-panes", "-t", "=mine:", "-F", "#{pane_id}").strip()
    # The user's prefix and d reach the room as keys, not as a detach of the room.
    outer.check("send-keys", "-t", user_pane, "C-b", "d", "x", "y", "z")
    wait_until(lambda: "dxyz" in room.server.capture(active), 20,
               message=lambda: f"keys typed in the room: {room.server.capture(active)!r}")
    assert clients(room), "C-b d detached the room"
    outer.check("send-keys", "-t", user_pane, "C-a", "d")  # what the status line says
    wait_until(lambda: not clients(room), 20, message="Ctrl-a d leaves the room")


def test_the_user_on_ctrl_a_gets_ctrl_b_and_outside_tmux_the_usual_prefix(
        room: LiveRoom, outer: RoomServer) -> None:
    outer.check("new-session", "-d", "-s", "mine", "cat")
    outer.check("set-option", "-g", "prefix", "C-a")
    socket = outer.socket_path()
    told = nesting.fit_prefix(room.server, {"TMUX": f"{socket},1,0"})
    assert option(room, "prefix") == "C-b" and told and "Ctrl-b d leaves" in told
    assert nesting.fit_prefix(room.server, {}) is None  # attached outside tmux again
    assert option(room, "prefix") == "" and option(room, "status-left") == ""


def test_a_status_line_set_by_someone_else_stays(room: LiveRoom, outer: RoomServer) -> None:
    outer.check("new-session", "-d", "-s", "mine", "cat")
    demo = "bullpen demo: #{prefix} then d ends it"  # the demo's, naming the prefix itself
    room.server.check("set-option", "-t", "=bullpen:", "status-left", demo)
    nesting.fit_prefix(room.server, {"TMUX": f"{outer.socket_path()},1,0"})
    assert (option(room, "prefix"), option(room, "status-left")) == ("C-a", demo)
    nesting.fit_prefix(room.server, {})
    assert (option(room, "prefix"), option(room, "status-left")) == ("", demo)
