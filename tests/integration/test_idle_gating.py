"""An idle coordinator skips its periodic reads while nothing they depend on moved
(workers/coordinator/stamps.py), and still misses nothing: once it is idle (its quiet
rounds skipped), a note is typed, a commit alerts the session that read the file, a
commit nobody announced still raises a conflict, and an agent's exit is seen.
On PostgreSQL the stamps cannot tell: the reads keep their cadence, nothing skipped."""

from __future__ import annotations

import json
import os
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from board import alerts, events, notes, reads, sessions
from board.db import connect, is_postgres
from board.home import DB_NAME
from board.identity import Caller
from board.room import Room
from board.vocabulary import EventKind
from tests.agents.scripted_agent import command_line
from tests.conftest import add_session, commit_file
from tests.waiting import wait_for_text, wait_until
from workers.coordinator.loop import Coordinator
from workers.coordinator.radar import Radar
from workers.tmux.server import RoomServer

pytestmark = pytest.mark.both_stores


@dataclass
class Live:
    room: Room
    server: RoomServer
    coordinator: Coordinator
    pane: str
    log: Path
    shared: bool

    def typed(self) -> list[str]:
        if not self.log.exists():
            return []
        return [json.loads(row)["line"] for row in self.log.read_text().splitlines()]

    def idle(self) -> bool:
        """Its quiet rounds are being skipped (on SQLite; PostgreSQL cannot skip)."""
        radar = self.coordinator.watching.radar
        return self.shared or bool(
            self.coordinator.poller.watch.skipped and radar is not None
            and radar.rounds is not None and radar.rounds.skipped >= 2)


@pytest.fixture
def live(room: Room, tmp_path: Path) -> Iterator[Live]:
    """A room with `bob` (a scripted agent taking typed notes) and `alice`, `carol`
    (worktrees, no panes), followed by the real coordinator loop on a thread."""
    server = RoomServer(f"bp-idle-{os.getpid()}")
    server.ensure_session("bullpen", cwd=tmp_path)
    log = tmp_path / "bob.jsonl"
    command = command_line(log)
    add_session(room, "bob")
    pane = server.launch("bullpen", f"exec {command}", tmp_path, {}, "bob", new_window=True)
    sessions.update(room.conn, "bob", pane_id=pane, agent=command, deliver="type")
    wait_for_text(lambda: server.capture(pane), "agent>")
    for name in ("alice", "carol"):
        add_session(room, name)
    stop = threading.Event()
    made: list[Coordinator] = []

    def run() -> None:  # its sqlite connection must be made on its own thread
        made.append(Coordinator(room.home, server=server, idle_after=0.3))
        made[0].run(stop)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        wait_until(lambda: made, message="the coordinator")
        yield Live(room, server, made[0], pane, log, is_postgres(room.conn))
    finally:
        stop.set()
        thread.join(15)
        server.kill_server()


def wait_idle(live: Live) -> None:
    wait_until(live.idle, timeout=20, message="the coordinator skipping its quiet rounds")


def test_a_note_to_an_idle_session_is_still_typed(live: Live) -> None:
    wait_idle(live)
    note = notes.send(live.room.conn, Caller("operator"), "bob", "are you there?")
    wait_until(lambda: any(f"#{note.id} from" in line for line in live.typed()),
               timeout=10, message=lambda: f"the note typed; typed {live.typed()}")


def test_a_commit_still_alerts_the_session_that_read_the_file(live: Live) -> None:
    wait_idle(live)
    reads.record(live.room.conn, "bob", ["src/app.py"])
    wait_idle(live)  # the read's own event is past: idle again before the commit
    tree = Path(sessions.get(live.room.conn, "alice").worktree)
    sha = commit_file(tree, "src/app.py", "def handler():\n    return 'v2'\n", "v2")

    def alerted() -> bool:
        recorded = any(e.kind == EventKind.CHANGE_RECORDED and e.data.get("commit") == sha
                       for e in events.since(live.room.conn, 0, limit=10_000))
        return recorded and any(a.changed_by == "alice"
                                for a in alerts.for_session(live.room.conn, "bob"))
    wait_until(alerted, timeout=15, message="alice's commit recorded and bob alerted")


def test_a_commit_no_event_announced_still_raises_a_conflict(room: Room) -> None:
    """The radar alone, no watcher: only its quiet round (a ref moved) can see them."""
    trees = {name: add_session(room, name) for name in ("alice", "carol")}
    radar = Radar(room.home.parent, lambda: connect(room.home / DB_NAME)).start()
    try:
        wait_until(lambda: radar.rounds is not None and (
            is_postgres(room.conn) or radar.rounds.skipped >= 2), timeout=20,
            message="the radar skipping its quiet rounds")
        for name, tree in trees.items():
            commit_file(tree, "src/app.py", f"def handler():\n    return '{name}'\n", name)

        def told() -> bool:
            return all(any(n.kind == "conflict" for n in notes.pending(room.conn, name))
                       for name in trees)
        wait_until(told, timeout=15, message="both sides told of their conflict")
    finally:
        radar.stop()


def test_an_agent_exiting_in_an_idle_room_is_seen(live: Live) -> None:
    wait_idle(live)
    pid = int(live.server.check("display-message", "-p", "-t", live.pane, "#{pane_pid}"))
    os.kill(pid, signal.SIGTERM)
    wait_until(lambda: sessions.get(live.room.conn, "bob").status == "exited", timeout=10,
               message=lambda: f"bob exited; is {sessions.get(live.room.conn, 'bob').status}")
