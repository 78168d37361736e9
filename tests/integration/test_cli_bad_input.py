"""Bad input: one clear line on stderr, exit status 2, nothing written."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from board import sessions, tasks
from board.db import is_postgres
from board.identity import Caller
from board.room import Room
from tests.cli_runner import identity, run_cli

pytestmark = pytest.mark.both_stores

TABLES = ("sessions", "tasks", "task_links", "task_comments", "notes", "deliveries",
          "notebook", "reads", "events")


def fingerprint(room: Room) -> dict[str, int]:
    """Row counts of every table, as committed (the room's connection is in autocommit)."""
    return {table: room.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in TABLES}


@pytest.fixture
def populated(room: Room) -> dict[str, str]:
    env = identity(room.home, "bob", sessions.register(room.conn, "bob"))
    first = tasks.add(room.conn, Caller("operator"), "first")
    tasks.add(room.conn, Caller("operator"), "second", after=[first.id])
    return env


CASES = {
    "unknown session": (["note", "send", "ghost", "hi"], "unknown session 'ghost'"),
    "unknown task": (["task", "done", "99"], "unknown task 99"),
    "unknown task show": (["task", "show", "99"], "unknown task 99"),
    "empty note": (["note", "send", "bob", " "], "note is empty"),
    "oversized note": (["note", "send", "bob", "x" * 8001], "the limit is 8000"),
    "control characters": (["note", "send", "bob", "hi\x1b[2J"], "control character"),
    "invalid status": (["task", "move", "1", "doing"], "invalid status 'doing'"),
    "invalid status filter": (["task", "ls", "--status", "doing"],
                              "choose from 'triage', 'todo'"),
    "cycle": (["task", "link", "2", "1"], "cycle"),
    "reply to unknown note": (["note", "send", "bob", "hi", "--reply-to", "77"],
                              "note 77 does not exist"),
    "bad argument": (["task", "move", "one", "done"], "'one' is not an id"),
    "id too large": (["task", "show", "9" * 20], "too large to be an id"),
    "reply-to too large": (["note", "send", "bob", "hi", "--reply-to", "9" * 20],
                           "too large to be an id"),
    "unknown command": (["frobnicate"], "unknown command 'frobnicate'"),
    "near miss": (["nots", "inbox"], "unknown command 'nots'; did you mean 'note'?"),
    "invalid name": (["register", "../x"], "invalid session name"),
    "existing name": (["register", "bob"], "already exists"),
    "operator reads": (["read", "README.md"], "only a session can record reads"),
    "empty search": (["notebook", "search", "!!!"], "no words"),
    "negative wait": (["note", "inbox", "--wait", "-3"], "not 0 or more seconds"),
    "wait that is not a number": (["note", "inbox", "--wait", "soon"], "not a number"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_one_line_exit_two_and_changes_nothing(
        room: Room, populated: dict[str, str], case: str) -> None:
    args, message = CASES[case]
    before = fingerprint(room)
    result = run_cli(*args, cwd=room.home.parent)
    assert result.returncode == 2, result
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert fingerprint(room) == before


def test_wrong_or_missing_token_is_refused(room: Room, populated: dict[str, str]) -> None:
    before = fingerprint(room)
    for env in ({**populated, "BULLPEN_TOKEN": "forged"},
                {**populated, "BULLPEN_TOKEN": ""},
                {**populated, "BULLPEN_SESSION": "nobody"}):
        result = run_cli("note", "send", "bob", "hello", cwd=room.home.parent, env=env)
        assert result.returncode == 2 and len(result.stderr.splitlines()) == 1
        assert "BULLPEN_" in result.stderr
    assert fingerprint(room) == before


def test_read_outside_the_repository_records_nothing(room: Room, populated) -> None:
    before = fingerprint(room)
    for path in ("../elsewhere.py", "/etc/passwd", ".git/config", "", "src/\x1b[2Japp.py",
                 ".bullpen/bullpen.db"):
        result = run_cli("read", path, cwd=room.home.parent, env=populated)
        assert result.returncode == 2, result
    assert fingerprint(room) == before
    ok = run_cli("read", "src/app.py", cwd=room.home.parent, env=populated)
    assert ok.returncode == 0 and fingerprint(room)["reads"] == 1


def test_outside_a_git_repository(tmp_path: Path) -> None:
    result = run_cli("task", "ls", cwd=tmp_path)
    assert result.returncode == 2 and "not inside a git repository" in result.stderr
    assert not (tmp_path / ".bullpen").exists()


@pytest.mark.parametrize("where", ["under-a-file/home", "a-file"])
def test_a_bullpen_home_that_cannot_hold_a_room(tmp_path: Path, where: str) -> None:
    (tmp_path / "under-a-file").write_text("x")
    (tmp_path / "a-file").write_text("x")
    for args in (["task", "ls"], ["ls"]):
        result = run_cli(*args, cwd=tmp_path, env={"BULLPEN_HOME": str(tmp_path / where)})
        assert result.returncode == 2, result
        assert result.stderr.count("\n") == 1 and "BULLPEN_HOME" in result.stderr, result
    assert (tmp_path / "a-file").read_text() == "x"


def test_a_database_that_is_not_bullpens(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with sqlite3.connect(home / "bullpen.db") as conn:
        conn.execute("CREATE TABLE recipes (name TEXT)")
    result = run_cli("task", "ls", cwd=tmp_path, env={"BULLPEN_HOME": str(home)})
    assert result.returncode == 2 and "not a bullpen database" in result.stderr
    with sqlite3.connect(home / "bullpen.db") as conn:
        assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["recipes"]


def test_a_text_file_posing_as_the_database(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "bullpen.db").write_text("hello, not sqlite at all " * 100)
    result = run_cli("task", "ls", cwd=tmp_path, env={"BULLPEN_HOME": str(home)})
    assert result.returncode == 2 and "not a bullpen database" in result.stderr


def test_a_database_from_a_newer_bullpen(room: Room) -> None:
    if is_postgres(room.conn):
        room.conn.execute("UPDATE bullpen_schema SET version = 99")
    else:
        room.conn.execute("PRAGMA user_version = 99")
    result = run_cli("task", "ls", cwd=room.home.parent)
    assert result.returncode == 2 and "newer than this bullpen" in result.stderr
