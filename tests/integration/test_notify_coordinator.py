"""The coordinator in trouble is told: a store it cannot write (a full disk), once, and
its stop when its database was deleted, sent before it exits. Real SQLite on a real
tmpfs, real Apprise over real HTTP."""

from __future__ import annotations

from pathlib import Path

from board import sessions, store, tasks
from board.identity import Caller
from board.room import Room, open_room
from tests.integration.test_coordinator_faults import coordinator, run_in_thread
from tests.integration.test_notify import told
from tests.integration.test_store_faults import fill, small_fs  # noqa: F401
from tests.notify_receiver import receiver
from tests.waiting import wait_until
from workers.coordinator.lock import RoomLock, read_state

OPERATOR = Caller("operator")


def configure(home: Path, url: str) -> None:
    store.write_local(home, notify=[url])  # beside what is there (a store: URL)


def test_a_deleted_database_is_told_before_the_coordinator_exits(room: Room) -> None:
    with receiver() as got:
        configure(room.home, got.url)
        coord = coordinator(room.home)
        thread, stop = run_in_thread(coord)
        for leftover in room.home.glob("bullpen.db*"):
            leftover.unlink()
        thread.join(10)
        assert not thread.is_alive()
        stop.set()
        [line] = told(got, r"^the coordinator: ", timeout=5)
        assert line.startswith("the coordinator: stopped: ") and "was deleted or replaced" \
            in line


def test_a_full_disk_is_told_once_and_recovering_tells_nothing_more(
        small_fs: Path) -> None:  # noqa: F811
    home = small_fs / "room"
    env = {"BULLPEN_HOME": str(home)}
    with receiver() as got:
        with open_room(env=env) as room:
            sessions.register(room.conn, "b")
        configure(home, got.url)
        lock = RoomLock.take(home)
        coord = coordinator(home, lock=lock)
        with open_room(env=env) as room:  # work for the coordinator: a ping to write
            tasks.add(room.conn, OPERATOR, "ship it", assignee="b")
        filler = fill(small_fs)
        thread, stop = run_in_thread(coord)
        try:
            [line] = told(got, r"^the coordinator: ", timeout=15)
            assert line == "the coordinator: store not writable — database or disk is full"
            filler.unlink()
            wait_until(lambda: read_state(home) is None, 15, message="recovery")
            assert [line for line in got.lines() if "coordinator" in line] == [line]
        finally:
            stop.set()
            thread.join(10)
            lock.close()
