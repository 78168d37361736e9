"""Store faults fail loud and safe: one line, exit 1 (2 for a bad BULLPEN_HOME), no
traceback, nothing half-written — on a real full filesystem (a small tmpfs), a
read-only mount, damaged pages, a lost database and homes that cannot be rooms."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from board import db, notes, reads, sessions
from board.db import connect_sqlite, write
from board.identity import Caller
from board.room import open_room
from tests.cli_runner import identity, run_cli
from tests.waiting import wait_until

NOTE_TABLES = ("notes", "deliveries", "notebook", "events")


def counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in NOTE_TABLES}


def one_line_failure(result: subprocess.CompletedProcess, status: int, needle: str) -> None:
    assert result.returncode == status, result
    assert "Traceback" not in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert needle in result.stderr, result.stderr


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """A 4 MiB tmpfs the test can fill up or make read-only (needs mount rights)."""
    mount = tmp_path / "fs"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or 'not root'});"
                    " the full-disk and read-only cases need one")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(directory: Path) -> Path:
    """Write a file until the filesystem is full; returns it (delete it to free space)."""
    filler = directory / "filler"
    with filler.open("wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * 4096)
        except OSError as error:
            assert error.errno == errno.ENOSPC
    return filler


@pytest.fixture
def full_room(small_fs: Path, git_repo: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    home = small_fs / "room"
    env = {"BULLPEN_HOME": str(home)}
    with open_room(env=env) as room:
        sessions.register(room.conn, "b")
    yield home, env


def test_a_full_disk_fails_one_line_and_loses_nothing_written_before(full_room, git_repo):
    home, env = full_room
    assert run_cli("note", "send", "b", "before", cwd=git_repo, env=env).returncode == 0
    before = counts(home / "bullpen.db")
    filler = fill(home.parent)
    for args in (["note", "send", "b", "while full"], ["notebook", "write", "while full"]):
        one_line_failure(run_cli(*args, cwd=git_repo, env=env), 1, "is full")
    filler.unlink()
    assert counts(home / "bullpen.db") == before  # nothing half-written
    assert run_cli("note", "send", "b", "after", cwd=git_repo, env=env).returncode == 0
    with open_room(env=env) as room:
        assert [n.body for n in notes.pending(room.conn, "b")] == ["before", "after"]


def test_a_read_only_store_fails_one_line(full_room, git_repo, small_fs: Path) -> None:
    home, env = full_room
    subprocess.run(["mount", "-o", "remount,ro", str(small_fs)], check=True)
    result = run_cli("note", "send", "b", "hello", cwd=git_repo, env=env)
    one_line_failure(result, 1, "the store")
    assert "read-only" in result.stderr or "cannot be opened" in result.stderr
    subprocess.run(["mount", "-o", "remount,rw", str(small_fs)], check=True)
    assert counts(home / "bullpen.db")["notes"] == 0


def test_damaged_pages_are_reported_with_the_way_out(room, git_repo: Path) -> None:
    sessions.register(room.conn, "b")
    for number in range(200):
        notes.send(room.conn, "operator", "b", f"note {number} " + "x" * 500)
    room.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    room.close()
    db = git_repo / ".bullpen" / "bullpen.db"
    page = 4096
    with db.open("r+b") as handle:  # keep page 1 (the schema), scribble over the rest
        size = db.stat().st_size
        for offset in range(page, size, page):
            handle.seek(offset)
            handle.write(os.urandom(page))
    result = run_cli("note", "inbox", cwd=git_repo,
                     env={"BULLPEN_SESSION": "", "BULLPEN_HOME": ""})
    one_line_failure(result, 1, "is damaged")
    assert "bullpen doctor" in result.stderr


def test_a_lost_database_is_not_replaced_by_an_empty_room(room, git_repo: Path) -> None:
    sessions.register(room.conn, "b")
    room.close()
    home = git_repo / ".bullpen"
    (home / "logs").mkdir()
    (home / "worktrees").mkdir()
    for leftover in home.glob("bullpen.db*"):
        leftover.unlink()
    for args in (["note", "inbox"], ["ls"], ["task", "add", "x"]):
        result = run_cli(*args, cwd=git_repo)
        one_line_failure(result, 1, "database")
        assert "is missing" in result.stderr and "restore bullpen.db" in result.stderr
    assert not (home / "bullpen.db").exists()


@pytest.mark.parametrize("home, needle", [
    ("/", "BULLPEN_HOME is /"),
    ("x" * 300, "300-byte name"),
    ("a/" * 2100, "the limit is 4096"),
])
def test_homes_that_cannot_be_rooms(tmp_path: Path, git_repo: Path, home: str,
                                    needle: str) -> None:
    where = home if home.startswith("/") else str(tmp_path / home)
    result = run_cli("note", "inbox", cwd=git_repo, env={"BULLPEN_HOME": where})
    one_line_failure(result, 2, needle)
    assert not Path("/bullpen.db").exists()


def test_a_home_owned_by_someone_else(tmp_path: Path, git_repo: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("making a directory owned by another user needs root")
    home = tmp_path / "theirs"
    home.mkdir()
    os.chown(home, 4242, 4242)
    result = run_cli("note", "inbox", cwd=git_repo, env={"BULLPEN_HOME": str(home)})
    one_line_failure(result, 2, "belongs to another user (uid 4242)")
    assert list(home.iterdir()) == []


def test_a_hook_or_note_alone_with_the_store_leaves_its_log_to_the_next_process(
        git_repo: Path) -> None:
    """With no coordinator or dashboard holding the store, `bullpen hook` and `bullpen
    note send` end without folding SQLite's write-ahead log into the database (its fsyncs
    were half a hook's cost: bench/hook_bench.py). What they wrote is in the log, and the
    next process reads it back; a last connection that closes still folds it in."""
    with open_room(env={}, start=git_repo) as room:
        env = identity(room.home, "bob", sessions.register(room.conn, "bob"))
        sessions.register(room.conn, "alice")
    log = git_repo / ".bullpen" / "bullpen.db-wal"
    assert not log.exists()  # the operator's connection was the last: folded in, removed
    read = json.dumps({"hook_event_name": "PostToolUse", "tool_name": "Read",
                       "cwd": str(git_repo), "tool_input": {"file_path": "src/app.py"}})
    hooked = run_cli("hook", "claude", cwd=git_repo, env=env, input=read)
    sent = run_cli("note", "send", "alice", "left in the log", cwd=git_repo, env=env)
    assert (hooked.returncode, hooked.stdout, hooked.stderr) == (0, "", "")
    assert (sent.returncode, sent.stderr) == (0, "") and sent.stdout.startswith("note ")
    assert log.stat().st_size > 0
    with open_room(env={}, start=git_repo) as room:
        assert [path for path, _ in reads.of_session(room.conn, "bob")] == ["src/app.py"]
        assert [note.body for note in notes.inbox(room.conn, Caller("alice"))] == [
            "left in the log"]
    assert not log.exists()


def test_a_writer_waits_its_turn_for_the_write_lock(tmp_path: Path, monkeypatch) -> None:
    """write() tries for the lock itself at short pauses (SQLite's own handler sleeps ever
    longer between tries): a writer finding it taken waits and takes it once it is free;
    held past BUSY_TIMEOUT_MS, it fails as SQLite's wait does, and reads wait SQLite's way."""
    path = tmp_path / "bullpen.db"
    holder, writer = connect_sqlite(path), connect_sqlite(path)
    tries: list[str] = []
    writer.set_trace_callback(lambda sql: tries.append(sql) if sql == "BEGIN IMMEDIATE" else None)
    holder.execute("BEGIN IMMEDIATE")

    def release_once_refused() -> None:
        wait_until(lambda: len(tries) >= 2, message="the writer refused and trying again")
        holder.execute("COMMIT")

    releasing = threading.Thread(target=release_once_refused)
    releasing.start()
    with write(writer):
        writer.execute("INSERT INTO meta (key, value) VALUES ('probe', 'taken')")
    releasing.join()
    assert len(tries) >= 2  # refused, then taken
    assert holder.execute("SELECT value FROM meta WHERE key = 'probe'").fetchone()[0] == "taken"
    assert writer.execute("PRAGMA busy_timeout").fetchone()[0] == db.BUSY_TIMEOUT_MS
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 200)
    holder.execute("BEGIN IMMEDIATE")
    with pytest.raises(sqlite3.OperationalError, match="database is locked"), write(writer):
        pass
    assert not writer.in_transaction
    assert writer.execute("PRAGMA busy_timeout").fetchone()[0] == 200
    holder.execute("ROLLBACK")
    holder.close()
    writer.close()


def test_a_writer_somebody_waits_on_tries_for_the_lock_without_backing_off(
        tmp_path: Path, monkeypatch) -> None:
    """An inbox marking what it read is waited on: it tries for the taken lock at one short
    pause, where a sender backs off (doubling to 4 ms) and leaves the lock to the reader."""
    path = tmp_path / "bullpen.db"
    holder, writer = connect_sqlite(path), connect_sqlite(path)
    schedules = {}
    for waited_on in (False, True):
        pauses: list[float] = []

        def pause(seconds: float, pauses: list[float] = pauses) -> None:
            pauses.append(seconds)
            if len(pauses) == 6:  # the holder commits after six refusals
                holder.execute("COMMIT")

        holder.execute("BEGIN IMMEDIATE")
        monkeypatch.setattr(db, "time", SimpleNamespace(monotonic=time.monotonic, sleep=pause))
        with write(writer, waited_on=waited_on):
            writer.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('probe', 'x')")
        monkeypatch.undo()
        schedules[waited_on] = pauses
    assert schedules[False] == [0.0005, 0.001, 0.002, 0.004, 0.004, 0.004]
    assert schedules[True] == [db.WAITED_ON_PAUSE] * 6
    assert db.WAITED_ON_PAUSE < db.FIRST_LOCK_PAUSE
    holder.close()
    writer.close()


def test_an_inbox_that_marks_what_it_read_is_a_writer_waited_on(room, monkeypatch) -> None:
    """`note inbox` finding notes takes the lock as a reader waiting for them."""
    sessions.register(room.conn, "alice")
    notes.send(room.conn, "operator", "alice", "for alice")
    taken: list[bool] = []
    real_write = notes.write

    def spy(conn, *, waited_on: bool = False):
        taken.append(waited_on)
        return real_write(conn, waited_on=waited_on)

    monkeypatch.setattr(notes, "write", spy)
    assert [note.body for note in notes.inbox(room.conn, Caller("alice"))] == ["for alice"]
    assert taken == [True]
