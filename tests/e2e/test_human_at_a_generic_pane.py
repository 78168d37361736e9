"""A human at a generic agent's pane (`deliver: type`), through a real tmux client: what
they typed and left on its cursor line is never glued to a note, however long ago the
last key was."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import libtmux
import pytest

from board.room import Room
from tests.agents.scripted_agent import command_line
from tests.e2e.delivery_bench import Bench, received
from tests.waiting import wait_for_text, wait_until
from workers.coordinator.delivery import KEY_QUIET
from workers.tmux.server import RoomServer


@pytest.fixture
def bench(room: Room, server: libtmux.Server, tmp_path: Path) -> Iterator[Bench]:
    tmux = RoomServer(server.socket_name or "")
    tmux.ensure_session("bench", cwd=tmp_path)
    made = Bench(room, tmux, tmp_path)
    made.start_coordinator()
    yield made
    made.stop()


def last_key(bench: Bench) -> int:
    return int(bench.server.check("list-clients", "-F", "#{client_activity}").split()[0])


def test_text_a_human_left_on_a_generic_agents_line_is_never_typed_onto(bench: Bench) -> None:
    if shutil.which("script") is None:
        pytest.skip("needs script(1) to attach a real tmux client")
    log = bench.tmp / "typist.jsonl"
    pane = bench.start("typist", command_line(log), deliver="type")
    bench.wait_status("typist", "idle")
    bench.server.check("select-window", "-t", pane)
    client = subprocess.Popen(
        ["script", "-qfc", shlex.join(["tmux", *bench.server.base_argv()[1:], "attach",
                                       "-t", "bench"]), "/dev/null"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "TERM": "xterm"})
    assert client.stdin is not None
    try:
        wait_until(lambda: bench.server.check("list-clients", "-F", "#{pane_id}").split()
                   == [pane], message="the client attached on the agent's pane")
        client.stdin.write(b"half typed")  # the human starts a line, then walks away
        client.stdin.flush()
        wait_for_text(lambda: bench.screen(pane), "agent> half typed")
        typed_at = last_key(bench)
        note = bench.send("typist", "for the agent")
        bench.wait_held(note, "typist", "human typing")
        wait_until(lambda: time.time() - typed_at > KEY_QUIET + 1.5, timeout=10,
                   message="the keyboard quiet for longer than the key hold")
        bench.wait_held(note, "typist", "human typing")  # still: the line is the human's
        assert received(log, note) == []
        client.stdin.write(b"\x15")  # Ctrl-U: the human clears the line
        client.stdin.flush()
        bench.wait_typed(note, "typist", timeout=15)
        [row] = received(log, note)
        assert row["line"] == f"[note #{note.id} from operator] for the agent"
    finally:
        client.kill()
        client.wait(5)
