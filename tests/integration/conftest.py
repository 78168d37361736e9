"""Fixtures shared by the integration tests."""

from __future__ import annotations

from pathlib import Path

import libtmux
import pytest

from tests.agents.scripted_agent import command_line
from tests.waiting import wait_for_text
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
