"""Opt-in filesystem read detection: a real `cat` in a real worktree becomes a read."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from board import reads, sessions
from board.db import connect
from board.room import Room
from board.vocabulary import ReadSource
from tests.conftest import git
from workers.coordinator.fs_reads import FsReads

pytestmark = pytest.mark.both_stores


def wait_until(predicate: Callable[[], object], what: str, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        threading.Event().wait(0.01)


@pytest.fixture
def tree_b(room: Room, git_repo: Path) -> Path:
    path = git_repo / ".bullpen" / "worktrees" / "b"
    git(git_repo, "worktree", "add", "-q", "-b", "bullpen/b", str(path))
    sessions.register(room.conn, "b", branch="bullpen/b", worktree=str(path))
    return path


@pytest.fixture
def seen(tree_b: Path) -> Iterator[tuple[FsReads, list[list[str]]]]:
    batches: list[list[str]] = []
    fs = FsReads(tree_b, batches.append)
    fs.start()
    yield fs, batches
    fs.stop()


def read_paths(room: Room) -> list[str]:
    return [path for path, _ in reads.of_session(room.conn, "b")]


def test_cat_in_the_worktree_records_a_read(room: Room, tree_b: Path) -> None:
    conn = connect(room.db_path)
    fs = FsReads(tree_b, lambda paths: reads.record(conn, "b", paths, source=ReadSource.FS))
    fs.start()
    try:
        subprocess.run(["cat", "src/app.py"], cwd=tree_b, check=True, capture_output=True)
        wait_until(lambda: read_paths(room) == ["src/app.py"], "the fs read of src/app.py")
        row = room.conn.execute("SELECT source FROM reads WHERE session = 'b'").fetchone()
        assert row["source"] == "fs"
    finally:
        fs.stop()
        conn.close()


def test_writes_git_internals_and_paused_calls_are_not_reads(
        seen: tuple[FsReads, list[list[str]]], tree_b: Path) -> None:
    fs, batches = seen
    (tree_b / "src" / "new.py").write_text("written, not read\n")
    subprocess.run(["cat", ".git"], cwd=tree_b, check=True, capture_output=True)
    with fs.paused():
        subprocess.run(["cat", "README.md"], cwd=tree_b, check=True, capture_output=True)
    (tree_b / "lib").mkdir()  # a directory made after start is watched too
    wait_until(lambda: fs.is_watching(tree_b / "lib"), "the watch on lib/")
    (tree_b / "lib" / "util.py").write_text("x\n")
    subprocess.run(["cat", "lib/util.py"], cwd=tree_b, check=True, capture_output=True)
    wait_until(lambda: any("lib/util.py" in batch for batch in batches), "the read of util.py")
    assert {path for batch in batches for path in batch} == {"lib/util.py"}
