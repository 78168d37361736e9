"""The coordinator under bad data and store faults: it skips what it cannot use (with
the reason in its log), retries what the store could not take, and stops — saying why —
when its lock or database is no longer its own. Real SQLite files, real tmpfs, real tmux."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import pytest

from board import notes, sessions, tasks, views
from board.db import write
from board.identity import Caller
from board.room import Room, open_room
from tests.cli_runner import run_cli
from tests.integration.test_store_faults import fill, one_line_failure, small_fs  # noqa: F401
from tests.waiting import wait_until
from tui.dashboard.actions import RuntimeActions
from workers.coordinator.lock import RoomLock, lock_path, read_state
from workers.coordinator.loop import Coordinator, RoomGone
from workers.tmux.server import RoomServer, socket_name_for

OPERATOR = Caller("operator")


def coordinator(home: Path, lock: RoomLock | None = None) -> Coordinator:
    # A server that never runs: no panes, so only the store-side work happens.
    return Coordinator(home, server=RoomServer(f"bp-faults-{os.getpid()}"), watch=False,
                       lock=lock)


def run_in_thread(coord: Coordinator) -> tuple[threading.Thread, threading.Event]:
    stop = threading.Event()
    thread = threading.Thread(target=coord.run, args=(stop,), daemon=True)
    thread.start()
    return thread, stop


def test_a_bad_event_is_logged_with_its_id_and_the_next_ones_still_run(
        room: Room, caplog: pytest.LogCaptureFixture) -> None:
    sessions.register(room.conn, "b")
    with write(room.conn):  # an event whose data is not what its kind promises
        bad = room.conn.execute(
            "INSERT INTO events (kind, session, ref, data, created_at)"
            " VALUES ('change_recorded', 'b', 1, '[1, 2]', 0)").lastrowid
    task = tasks.add(room.conn, OPERATOR, "after the bad event", assignee="b")
    coord = coordinator(room.home)
    with caplog.at_level(logging.ERROR):
        coord.tick()
        coord.tick()
    assert f"event {bad} (change_recorded) skipped: AttributeError" in caplog.text
    [ping] = notes.pending(room.conn, "b")
    assert ping.task == task.id  # the event after the bad one was handled
    assert coord.dispatcher.cursor == views.last_event_id(room.conn)  # past the bad one
    coord.conn.close()


def test_a_deleted_lock_file_is_taken_again_and_a_second_coordinator_refused(
        room: Room) -> None:
    lock = RoomLock.take(room.home)
    assert lock is not None and RoomLock.take(room.home) is None
    lock_path(room.home).unlink()
    assert lock.held()  # it took the new file at the same path
    assert RoomLock.take(room.home) is None  # so a second coordinator still cannot start
    assert lock_path(room.home).read_text().split()[0] == str(os.getpid())
    lock.close()


def test_a_lock_taken_over_by_another_coordinator_stops_this_one(room: Room,
                                                                 caplog) -> None:
    ours = RoomLock.take(room.home)
    coord = coordinator(room.home, lock=ours)
    lock_path(room.home).unlink()
    theirs = RoomLock.take(room.home)  # another coordinator starts on a fresh lock file
    assert theirs is not None
    coord._last_housekeeping = 0.0
    with pytest.raises(RoomGone, match="another coordinator holds it"):
        coord.tick()
    theirs.close()
    ours.close()
    coord.conn.close()


def test_a_deleted_database_stops_the_coordinator_instead_of_writing_into_the_void(
        room: Room, caplog) -> None:
    coord = coordinator(room.home)
    thread, stop = run_in_thread(coord)
    for leftover in room.home.glob("bullpen.db*"):
        leftover.unlink()
    with caplog.at_level(logging.ERROR):
        thread.join(10)
    assert not thread.is_alive()
    assert "was deleted or replaced" in caplog.text
    stop.set()


def test_a_full_disk_is_retried_shown_in_ls_and_recovered_from(small_fs: Path,  # noqa: F811
                                                               git_repo: Path) -> None:
    home = small_fs / "room"
    env = {"BULLPEN_HOME": str(home)}
    with open_room(env=env) as room:
        sessions.register(room.conn, "b")
    lock = RoomLock.take(home)
    coord = coordinator(home, lock=lock)
    with open_room(env=env) as room:  # work for the coordinator: a ping to write
        task = tasks.add(room.conn, OPERATOR, "ship it", assignee="b")
    filler = fill(small_fs)
    thread, stop = run_in_thread(coord)
    try:
        state = wait_until(lambda: read_state(home), 10, message="the store-fault state")
        assert state == "store not writable — database or disk is full"
        shown = run_cli("ls", cwd=git_repo, env=env)
        assert shown.returncode == 0, shown
        assert "coordinator: store not writable — database or disk is full" in shown.stdout
        # What the dashboard's keeper reads for its needs-you strip: the same line.
        assert RuntimeActions(home).coordinator_state() == state
        assert thread.is_alive()
        filler.unlink()
        wait_until(lambda: read_state(home) is None, 15, message="recovery")
        with open_room(env=env) as room:
            pings = [n for n in notes.pending(room.conn, "b") if n.task == task.id]
        assert len(pings) == 1  # delivered once, after the retry: nothing lost or doubled
    finally:
        stop.set()
        thread.join(10)
        lock.close()


@pytest.mark.parametrize("kind", ["directory", "dangling symlink"])
def test_up_with_a_broken_lock_says_what_to_remove_and_starts_nothing(
        git_repo: Path, kind: str) -> None:
    home = git_repo / ".bullpen"
    open_room(env={}, start=git_repo).close()  # a room that ran before
    if kind == "directory":
        lock_path(home).mkdir()
    else:
        lock_path(home).symlink_to(git_repo / "nowhere" / "lock")
    result = run_cli("up", "--detach", "--no-dashboard", cwd=git_repo)
    one_line_failure(result, 1, "not the coordinator's lock file; remove it")
    assert not (home / "worktrees").exists()
    assert not RoomServer(socket_name_for(git_repo)).is_alive()


def test_up_prints_why_the_coordinator_did_not_start(git_repo: Path) -> None:
    home = git_repo / ".bullpen"
    open_room(env={}, start=git_repo).close()
    (home / "logs").write_text("a file where the log directory belongs")
    try:
        result = run_cli("up", "--detach", "--no-dashboard", cwd=git_repo, timeout=30)
        one_line_failure(result, 1, "the coordinator did not start: [Errno 17] File exists")
    finally:
        run_cli("down", cwd=git_repo)
