"""Fixtures shared by the integration tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import libtmux
import pytest

from board import alerts, sessions
from board.db import connect
from board.room import Room
from tests.agents.scripted_agent import command_line
from tests.integration.watch_team import Team
from tests.waiting import wait_for_text
from workers.coordinator.change_filter import ChangeBatch
from workers.coordinator.watcher import Watcher
from workers.tmux.server import RoomServer


@pytest.fixture
def agent_pane(server: libtmux.Server, tmp_path: Path) -> tuple[RoomServer, str, Path]:
    """A scripted agent `bob` at its prompt in a pane of a private tmux server, logging
    each line it is typed to the returned file."""
    room_tmux = RoomServer(server.socket_name or "")
    room_tmux.ensure_session("bullpen", cwd=tmp_path)
    log = tmp_path / "agent.jsonl"
    pane = room_tmux.launch("bullpen", command_line(log), tmp_path, {}, "bob",
                            new_window=True)
    wait_for_text(lambda: room_tmux.capture(pane), "agent>")
    return room_tmux, pane, log


@pytest.fixture
def team(room: Room, git_repo: Path) -> Iterator[Team]:
    """Sessions a and b in their own worktrees, watched with the main checkout."""
    watcher_conn = connect(room.db_path)
    found = Team(git_repo, room, None)  # type: ignore[arg-type]

    def on_change(batch: ChangeBatch) -> None:
        alerts.record_change(watcher_conn, batch.source, batch.paths, batch.commit,
                             batch.message, batch.as_edited)
        found.batches.append(batch)

    def known_head(source: str) -> str | None:
        session = sessions.get(room.conn, source)
        return session.base if session is not None else None

    found.watcher = Watcher(git_repo, on_change, known_head=known_head)
    for name in ("a", "b"):
        found.add_session(name)
    found.watcher.set_targets({"main": git_repo, "a": found.tree("a"), "b": found.tree("b")})
    found.watcher.start()
    assert found.watcher.wait_ready()
    yield found
    found.watcher.stop()
    watcher_conn.close()
