"""Exactly once across kill -9: the coordinator dies at each step of a delivery (after
the claim, after the paste, after the Enter, before the confirm), 20 times each, and
every note reaches the agent's input exactly once — counted in the agent's own log."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import libtmux
import pytest

from board import deliveries, notes, sessions
from board.room import Room
from tests.agents.scripted_agent import command_line
from tests.e2e.delivery_bench import log_rows, received
from tests.waiting import wait_for_text, wait_until
from workers.coordinator.delivery import STEPS
from workers.tmux.server import RoomServer

ROUNDS = 20
ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def coordinator(home: Path, socket: str, step: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tests.agents.crashing_coordinator",
                             str(home), socket, step], cwd=ROOT)


@pytest.mark.parametrize("step", STEPS)
def test_kill_9_at_each_delivery_step_loses_and_repeats_nothing(
        room: Room, server: libtmux.Server, tmp_path: Path, step: str) -> None:
    tmux = RoomServer(server.socket_name or "")
    tmux.ensure_session("bench", cwd=tmp_path)
    log = tmp_path / "bob.jsonl"
    sessions.register(room.conn, "bob", agent="python3 agent.py")
    pane = tmux.launch("bench", f"exec {command_line(log)}", tmp_path, {}, "bob",
                       new_window=True)
    wait_for_text(lambda: tmux.capture(pane), "agent>")
    sessions.update(room.conn, "bob", pane_id=pane, desired="running", deliver="type")
    sent = []
    for index in range(ROUNDS):
        sent.append(notes.send(room.conn, "operator", "bob", f"{step} round {index}"))
        crashed = coordinator(room.home, tmux.socket_name, step)
        assert crashed.wait(30) == -9, f"round {index}: the coordinator was not killed at {step}"
    survivor = coordinator(room.home, tmux.socket_name, "none")  # recovers the last one
    try:
        wait_until(lambda: all(deliveries.state_of(room.conn, n.id, "bob") == "typed"
                               for n in sent), timeout=30,
                   message=lambda: "all typed: " + repr(
                       [deliveries.of_note(room.conn, n.id) for n in sent]))
    finally:
        survivor.terminate()
        survivor.wait(10)
    counts = {note.id: len(received(log, note)) for note in sent}
    assert counts == {note.id: 1 for note in sent}, log_rows(log)
    assert deliveries.repeats(room.conn, "bob", [n.id for n in sent]) == set()
