"""Delivery: note -> typed into an idle agent's prompt (target p99 <= 300 ms), and
note -> handed to the model by a hook, each against its raw primitive in the same run.

Typed: the real coordinator loop (in a thread, 1.5 s debounce) types into a scripted
agent in a private tmux server; latency is from `notes.send` returning to the agent
logging the line. The primitive: `tmux load-buffer; paste-buffer -p` then `send-keys
Enter` straight into the same pane, to the agent logging it. Handed: the whole
`bullpen hook hermes` process answering `pre_llm_call` with a waiting note, against
`python -c 'import sqlite3'`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from bench.common import describe, percentile, quick, scratch_repo
from bench.figures import record
from board import notes, sessions
from board.room import open_room
from tests.agents.scripted_agent import command_line
from workers.coordinator.loop import Coordinator
from workers.tmux.server import RoomServer

TYPED_NOTES = quick(30, 5)
HOOK_CALLS = quick(40, 6)
HOOK_TARGET = 1.5  # the hook process against the bare interpreter, handling it itself
POLL = 0.002  # how often the bench looks at the agent's log


def _lines(log: Path) -> list[dict]:
    return [json.loads(row) for row in log.read_text().splitlines()] if log.exists() else []


def _wait_logged(log: Path, needle: str, timeout: float = 20.0) -> float:
    """The time the agent logged a line holding `needle`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for row in reversed(_lines(log)):
            if needle in row["line"]:
                return row["t"]
        time.sleep(POLL)
    raise RuntimeError(f"the agent never received {needle!r}")


def _wait_status(conn, name: str, wanted: bool, timeout: float = 20.0) -> None:
    """Wait until the session is (or, with `wanted` False, is no longer) idle."""
    deadline = time.monotonic() + timeout
    while (sessions.get(conn, name).status == "idle") != wanted:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{name} never became {'idle' if wanted else 'busy'}")
        time.sleep(0.005)


def typed(repo: Path) -> tuple[list[float], list[float]]:
    room = open_room(env={}, start=repo)
    server = RoomServer(f"bench-deliver-{os.getpid()}")
    server.ensure_session("bench", cwd=repo)
    log = repo / "agent.jsonl"
    sessions.register(room.conn, "bob", agent="python3 agent.py")
    pane = server.launch("bench", f"exec {command_line(log)}", repo, {}, "bob",
                         new_window=True)
    sessions.update(room.conn, "bob", pane_id=pane, desired="running", deliver="type")
    stop = threading.Event()

    def run() -> None:
        Coordinator(room.home, server=server, watch=False).run(stop)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ours: list[float] = []
    raw: list[float] = []
    try:
        for index in range(TYPED_NOTES):
            _wait_status(room.conn, "bob", wanted=True)  # its prompt, still for 1.5 s
            note = notes.send(room.conn, "operator", "bob", f"bench note {index}")
            sent = time.time()
            ours.append(_wait_logged(log, f"#{note.id} from operator") - sent)
            _wait_status(room.conn, "bob", wanted=False)  # its answer moved the screen
        stop.set()
        thread.join(10)
        for index in range(TYPED_NOTES):
            text = f"raw line {index}"
            started = time.time()
            server.check("load-buffer", "-b", "raw", "-", ";", "paste-buffer", "-p", "-d",
                         "-b", "raw", "-t", pane, stdin=text.encode())
            server.check("send-keys", "-t", pane, "Enter")
            raw.append(_wait_logged(log, text) - started)
    finally:
        stop.set()
        server.kill_server()
        room.close()
    return ours, raw


def handed(repo: Path) -> tuple[list[float], list[float]]:
    room = open_room(env={}, start=repo)
    token = sessions.register(room.conn, "hook-reader")
    bullpen = str(Path(sys.executable).parent / "bullpen")
    env = {**os.environ, "BULLPEN_HOME": str(room.home), "BULLPEN_SESSION": "hook-reader",
           "BULLPEN_TOKEN": token}
    payload = json.dumps({"hook_event_name": "pre_llm_call", "cwd": str(repo),
                          "extra": {"user_message": "go on", "task_id": "t1"}})
    ours: list[float] = []
    base: list[float] = []
    # Interleaved, one hook call then one bare interpreter: a change in the machine's
    # load falls on both sides of the ratio alike.
    for index in range(HOOK_CALLS):
        note = notes.send(room.conn, "operator", "hook-reader", f"hook note {index}")
        started = time.perf_counter()
        out = subprocess.run([bullpen, "hook", "hermes"], input=payload, env=env,
                             capture_output=True, text=True).stdout
        ours.append(time.perf_counter() - started)
        if f"note {note.id} from operator" not in out:
            raise RuntimeError(f"the hook did not hand note {note.id}: {out!r}")
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import sqlite3"], check=True)
        base.append(time.perf_counter() - started)
    room.close()
    return ours, base


def main() -> None:
    ours, raw = typed(scratch_repo())
    print(f"note -> typed into an idle agent (coordinator): {describe(ours)}")
    print(f"raw paste + Enter into the same pane:            {describe(raw)}")
    print(f"ratio p50 {percentile(ours, 0.5) / percentile(raw, 0.5):.1f}x,"
          f" p99 {percentile(ours, 0.99) * 1000:.0f} ms against a 300 ms target")
    typed_p99 = percentile(ours, 0.99)
    record("note -> typed into an idle agent, p99", f"{typed_p99 * 1000:.0f} ms",
           f"raw paste + Enter p99 {percentile(raw, 0.99) * 1000:.0f} ms",
           typed_p99 / max(percentile(raw, 0.99), 1e-6), "p99 <= 300 ms", typed_p99 <= 0.3)
    hook, base = handed(scratch_repo())
    print(f"note -> handed by `bullpen hook hermes` (whole process): {describe(hook)}")
    print(f"python -c 'import sqlite3':                              {describe(base)}")
    print(f"ratio p50 {percentile(hook, 0.5) / percentile(base, 0.5):.2f}x against a"
          f" {HOOK_TARGET}x target")
    ratio = percentile(hook, 0.5) / percentile(base, 0.5)
    record("bullpen hook hermes handing a note, p50", f"{percentile(hook, 0.5) * 1000:.1f} ms",
           f"python -c 'import sqlite3' {percentile(base, 0.5) * 1000:.1f} ms", ratio,
           f"<= {HOOK_TARGET}x", ratio <= HOOK_TARGET)


if __name__ == "__main__":
    main()
