"""A human at a generic agent's pane (`deliver: type`), through a real tmux client: what
they typed and left on its cursor line is never glued to a note, however long ago the
last key was."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import libtmux
import pytest

from board.room import Room
from tests.agents import raw_repl
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


@pytest.mark.parametrize("program", ["canonical", "raw"])
def test_a_half_line_typed_without_a_client_key_is_never_typed_onto(
        bench: Bench, program: str) -> None:
    """`tmux send-keys` of a half line (a paste, a script, a multiplexer inside: no tmux
    client pressed a key), left alone past the key hold: the note waits, for a program
    reading a line in canonical mode (the terminal echoes, the program writes nothing)
    and for a raw-mode one (it reads each key and echoes it itself)."""
    log = bench.tmp / "typist.jsonl"
    command = command_line(log) if program == "canonical" else shlex.join(
        [sys.executable, str(Path(raw_repl.__file__).resolve()), "--log", str(log)])
    prompt = "agent> " if program == "canonical" else "raw> "
    pane = bench.start("typist", command, deliver="type")
    bench.wait_status("typist", "idle")
    bench.server.check("send-keys", "-t", pane, "-l", "half typed")
    wait_for_text(lambda: bench.screen(pane), f"{prompt}half typed")
    typed_at = time.time()
    note = bench.send("typist", "for the agent")
    bench.wait_held(note, "typist", "human typing")
    wait_until(lambda: time.time() - typed_at > KEY_QUIET + 4, timeout=15,
               message="longer than the key hold and the key echo together")
    bench.wait_held(note, "typist", "human typing")  # still: the line is not the program's
    assert received(log, note) == [] and "half typed[note" not in bench.screen(pane)
    bench.server.check("send-keys", "-t", pane, "C-u")  # the line is cleared
    bench.wait_typed(note, "typist", timeout=15)
    wait_until(lambda: received(log, note), timeout=15, message="the note received")
    assert received(log, note)[0]["line"] == f"[note #{note.id} from operator] for the agent"
