"""Bad input everywhere is one line, exit 2, nothing changed: bytes that are not UTF-8
(as the shell passes them: surrogate-escaped argv), over-long paths, endless waits,
empty values, newlines in one-line fields, unknown sessions; and spawn is all or nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from board import sessions, tasks
from board.identity import Caller
from board.room import Room
from tests.cli_runner import identity, run_cli
from tests.conftest import git
from worktrees import create_worktree

BAD_BYTE = "caf\udcc3\udca9-ish \udcff"  # b"caf\xc3\xa9-ish \xff" as argv: not UTF-8
TABLES = ("sessions", "tasks", "task_comments", "notes", "deliveries", "notebook", "reads",
          "events", "audit")


def fingerprint(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}


@pytest.fixture
def bob(room: Room) -> dict[str, str]:
    env = identity(room.home, "bob", sessions.register(room.conn, "bob"))
    worktree = create_worktree(room.home.parent, "bob")
    sessions.update(room.conn, "bob", worktree=str(worktree.path), branch=worktree.branch,
                    base=worktree.base_commit)
    task = tasks.add(room.conn, Caller("operator"), "a task", assignee="bob")
    tasks.claim(room.conn, Caller("bob"), task.id)
    return env


def refused(result, needle: str) -> None:
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert needle in result.stderr, result.stderr


CASES = {
    "note send": (["note", "send", "bob", BAD_BYTE], "not valid UTF-8"),
    "notebook write": (["notebook", "write", BAD_BYTE], "not valid UTF-8"),
    "notebook tag": (["notebook", "write", "ok", "--tag", BAD_BYTE], "not valid UTF-8"),
    "task add": (["task", "add", BAD_BYTE], "not valid UTF-8"),
    "task comment": (["task", "comment", "1", BAD_BYTE], "not valid UTF-8"),
    "task block": (["task", "block", "1", BAD_BYTE], "not valid UTF-8"),
    "task done": (["task", "done", "1", "--summary", BAD_BYTE], "not valid UTF-8"),
    "read": (["read", f"src/{BAD_BYTE}.py"], "not valid UTF-8"),
    "diff": (["diff", BAD_BYTE], "not valid UTF-8"),
    "read a 4,000-character path": (["read", "x" * 4000], "too long"),
    "diff a 4,000-character path": (["diff", "bob", "--", "x" * 4000], "too long"),
    "wait forever": (["note", "inbox", "--wait", "1e309"], "more than 86400 seconds"),
    "newline in a title": (["task", "add", "first line\nsecond line"], "must be one line"),
    "newline in a tag": (["notebook", "write", "ok", "--tag", "a\nb"], "must be one line"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_one_line_exit_two_and_changes_nothing(room: Room, bob, case) -> None:
    args, needle = CASES[case]
    before = fingerprint(room.db_path)
    refused(run_cli(*args, cwd=room.home.parent, env=bob), needle)
    assert fingerprint(room.db_path) == before


SPAWN_CASES = {
    "a 30,000-character task": (["--task", "x" * 30_000], "task body is 30000 characters"),
    "an empty profile": (["--profile", ""], "--profile is empty"),
    "an empty base": (["--from", ""], "--from is empty"),
    "an empty task": (["--task", " "], "--task is empty"),
    "an unknown on-commit session": (["--on-commit", "nobody"],
                                     "--on-commit names unknown session 'nobody'"),
    "an unknown base": (["--from", "no-such-ref"], "no-such-ref"),
}


@pytest.mark.parametrize("case", list(SPAWN_CASES))
def test_spawn_validates_before_it_makes_anything(room: Room, case: str) -> None:
    extra, needle = SPAWN_CASES[case]
    before = fingerprint(room.db_path)
    result = run_cli("spawn", "c8", "--agent", "cat", "--no-dashboard", *extra,
                     cwd=room.home.parent)
    refused(result, needle)
    repo = room.home.parent
    assert sessions.get(room.conn, "c8") is None
    assert not (room.home / "worktrees" / "c8").exists()
    assert "bullpen/c8" not in git(repo, "branch", "--list")
    after = fingerprint(room.db_path)
    assert {k: v for k, v in after.items() if k != "audit"} == {
        k: v for k, v in before.items() if k != "audit"}
