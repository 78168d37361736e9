"""The room façade with real tmux and git: one pane-ownership rule for every surface.

A pane id the store remembers may, after tmux restarted, name another session's pane
(ids start again at %0). `attach NAME`, focus, zoom and capture must then refuse rather
than put the user on — or type at — somebody else's agent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from board import sessions
from board.errors import BadInput
from tests.rooms import LiveRoom, live_room
from workers.room.control import RoomControl

pytestmark = pytest.mark.slow


@pytest.fixture
def room(git_repo: Path, tmp_path: Path):
    with live_room(git_repo, tmp_path / "logs") as live:
        for name in ("alice", "bob"):
            live.cli("spawn", name, "--agent", live.agent(name), "--no-dashboard")
        yield live


def active_pane(room: LiveRoom) -> str:
    return room.server.check("display-message", "-p", "-t", "bullpen:", "#{pane_id}").strip()


def pane_of(room: LiveRoom, name: str) -> str:
    with room.db() as conn:
        pane = sessions.require(conn, name).pane
    assert pane
    return pane


def test_attach_refuses_a_remembered_pane_that_is_now_another_sessions(
        room: LiveRoom) -> None:
    alice, bob = pane_of(room, "alice"), pane_of(room, "bob")
    room.server.select_pane(alice)
    with room.db() as conn:  # as after a tmux restart: alice's id now names bob's pane
        sessions.update(conn, "alice", pane_id=bob)
    result = room.cli("attach", "alice", check=False)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "bullpen: alice has no pane; start it with bullpen restart alice")
    assert active_pane(room) == alice  # bob's pane was not selected


def test_every_pane_verb_uses_the_same_rule(room: LiveRoom) -> None:
    bob = pane_of(room, "bob")
    with room.db() as conn:
        sessions.update(conn, "alice", pane_id=bob)
    control = RoomControl(room.home)
    for verb in (control.focus, control.zoom, control.capture, control.attach_command):
        with pytest.raises(BadInput, match="alice has no pane"):
            verb("alice")


def test_attach_focuses_the_sessions_own_pane(room: LiveRoom) -> None:
    alice, bob = pane_of(room, "alice"), pane_of(room, "bob")
    room.server.select_pane(alice)
    argv = RoomControl(room.home).attach_command("bob")
    assert active_pane(room) == bob
    assert argv[-2:] == ["-t", "bullpen"]  # the room's tmux session, on its own socket
    assert room.server.socket_name in argv
