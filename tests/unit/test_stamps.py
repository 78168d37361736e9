"""Stat stamps and the store's version: a change is always seen, once; stillness is
seen as such only when the times are old enough to trust (the racy rule)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from board import wakeup
from board.db import connect
from board.home import DB_NAME
from workers.coordinator import stamps
from workers.coordinator.stamps import (
    RACY,
    FileStamps,
    StoreFiles,
    StoreStamp,
    git_ref_paths,
)

LATER = int(RACY * 1e9) * 10  # a clock this far ahead trusts every time on disk


def ahead() -> int:
    return time.time_ns() + LATER


def backdate(*paths: Path) -> None:
    """An hour ago: any change made now shows a new time."""
    old = time.time_ns() - 3600 * 10**9
    for path in paths:
        if path.exists():
            os.utime(path, ns=(old, old))


def test_a_change_is_seen_once(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_text("a")
    backdate(path)
    seen = FileStamps([path], clock=ahead)
    assert seen.moved()  # the first look
    assert not seen.moved()
    path.write_text("ab")
    assert seen.moved()
    assert not seen.moved()


def test_a_file_renamed_over_and_a_new_entry_are_seen(tmp_path: Path) -> None:
    refs = tmp_path / "refs"
    refs.mkdir()
    (refs / "main").write_text("1" * 40)
    backdate(refs, refs / "main")
    seen = FileStamps([refs], clock=ahead)
    seen.moved()
    (refs / "main.lock").write_text("2" * 40)  # the way git moves a ref
    os.replace(refs / "main.lock", refs / "main")
    assert seen.moved()
    backdate(refs)
    seen.moved()
    (refs / "topic").write_text("3" * 40)
    assert seen.moved()


def test_a_missing_path_is_still_until_it_appears(tmp_path: Path) -> None:
    path = tmp_path / "later"
    seen = FileStamps([path], clock=ahead)
    seen.moved()
    assert not seen.moved()
    path.write_text("here")
    assert seen.moved()


def test_recent_times_are_not_trusted_until_they_are_old(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_text("a")
    now = [time.time_ns()]
    seen = FileStamps([path], clock=lambda: now[0])
    assert seen.moved()
    assert seen.moved()  # nothing changed, but a change in the same tick could hide
    now[0] += LATER
    assert seen.moved()  # still the last racy look's doubt
    assert not seen.moved()


def test_new_paths_count_as_moved_once(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    seen = FileStamps([one], clock=ahead)
    seen.moved()
    seen.watch([one])
    assert not seen.moved()
    seen.watch([one, two])
    assert seen.moved()
    assert not seen.moved()


def test_the_bench_switch_makes_every_look_a_change(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(stamps.OFF, "1")
    seen = FileStamps([tmp_path], clock=ahead)
    seen.moved()
    assert seen.moved()


def test_the_store_version_moves_with_every_commit_whoever_made_it(tmp_path: Path) -> None:
    mine, other = connect(tmp_path / DB_NAME), connect(tmp_path / DB_NAME)
    try:
        version = StoreStamp(mine)
        files = StoreFiles(mine, tmp_path / DB_NAME, clock=ahead)
        assert version.moved() and files.moved()
        assert not version.moved() and not files.moved()
        other.execute("INSERT INTO meta (key, value) VALUES ('a', '1')")
        assert version.moved() and files.moved()
        assert not version.moved() and not files.moved()
        mine.execute("INSERT INTO meta (key, value) VALUES ('b', '1')")  # its own write
        assert version.moved() and files.moved()
        assert not version.moved()
    finally:
        mine.close()
        other.close()


def test_postgresql_cannot_tell_so_every_look_is_a_change(tmp_path: Path) -> None:
    class Shared:
        dialect = "postgresql"

    conn = Shared()
    assert StoreStamp(conn).moved()  # type: ignore[arg-type]
    version = StoreStamp(conn)  # type: ignore[arg-type]
    files = StoreFiles(conn, tmp_path / DB_NAME, clock=ahead)  # type: ignore[arg-type]
    for _ in range(3):
        assert version.moved() and files.moved()


def test_git_refs_moving_show_in_the_common_dir_stamps(tmp_path: Path) -> None:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=tmp_path, check=True, text=True,
                              capture_output=True).stdout.strip()

    git("init", "-q", "-b", "main")
    git("commit", "-q", "--allow-empty", "-m", "one")
    git("branch", "bullpen/a")
    git_dir = tmp_path / ".git"

    def settled() -> FileStamps:
        backdate(*git_ref_paths(git_dir))
        seen = FileStamps(git_ref_paths(git_dir), clock=ahead)
        seen.moved()
        assert not seen.moved()
        return seen

    seen = settled()
    git("commit", "-q", "--allow-empty", "-m", "two")  # main moves
    assert seen.moved()
    seen = settled()
    git("update-ref", "refs/heads/bullpen/a", "HEAD")  # a branch in a subdirectory
    assert seen.moved()
    seen = settled()
    git("branch", "topic")  # a new branch
    assert seen.moved()
    seen = settled()
    git("pack-refs", "--all")  # loose refs folded into packed-refs
    assert seen.moved()


@pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux's")
def test_a_commit_wakes_the_sqlite_waiter_at_once(tmp_path: Path) -> None:
    mine, other = connect(tmp_path / DB_NAME), connect(tmp_path / DB_NAME)
    changes = wakeup.waiter(mine, 0.05, tmp_path)
    try:
        assert changes.pushes
        assert not changes.wait(0.1)  # nothing written: a quiet timeout
        other.execute("INSERT INTO meta (key, value) VALUES ('a', '1')")
        started = time.monotonic()
        assert changes.wait(5.0)
        assert time.monotonic() - started < 1.0
        assert not changes.wait(0.1)  # one wake for what was written, not one per write
    finally:
        changes.close()
        mine.close()
        other.close()


def test_a_waiter_without_a_directory_polls(tmp_path: Path) -> None:
    conn = connect(tmp_path / DB_NAME)
    try:
        assert not wakeup.waiter(conn, 0.05).pushes
    finally:
        conn.close()
