"""The conflict radar against real worktrees: predicted without touching them, stored,
told once to each side, and told once more when it clears."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from board import conflicts, notes, sessions
from board.db import connect
from board.home import DB_NAME
from board.room import Room
from tests.cli_runner import run_cli
from tests.conftest import add_session, commit_file, git
from workers.coordinator.radar import Radar

pytestmark = pytest.mark.both_stores

ORIGINAL = "def handler():\n    return 'v1'\n"


def conflict_notes(room: Room, name: str) -> list[str]:
    return [n.body for n in notes.pending(room.conn, name) if n.kind == "conflict"]


def untouched(path: Path) -> tuple[str, str, str]:
    return (git(path, "rev-parse", "HEAD"), git(path, "ls-files", "--stage"),
            git(path, "status", "--porcelain", "--untracked-files=all"))


@pytest.fixture
def radar(room: Room) -> Radar:
    return Radar(room.home.parent, lambda: connect(room.home / DB_NAME))


def test_two_sessions_on_the_same_lines_are_each_told_once(room: Room, radar: Radar) -> None:
    a, b = add_session(room, "alice"), add_session(room, "bob")
    sha = commit_file(a, "src/app.py", "def handler():\n    return 'alice'\n", "alice's")
    (b / "src/app.py").write_text("def handler():\n    return 'bob'\n")  # uncommitted
    before = untouched(a), untouched(b)

    radar.scan(room.conn, {"alice", "bob"})
    radar.scan(room.conn, {"bob"})  # seen again: nothing new

    assert (untouched(a), untouched(b)) == before
    [conflict] = conflicts.open_conflicts(room.conn)
    assert (conflict.a, conflict.b, conflict.paths) == ("alice", "bob", ("src/app.py",))
    assert conflict.files[0].a_lines == ((2, 2),) and conflict.files[0].b_lines == ((2, 2),)
    assert conflict.a_commits == (sha[:7],) and conflict.b_commits == ("uncommitted",)
    [to_alice], [to_bob] = conflict_notes(room, "alice"), conflict_notes(room, "bob")
    assert "Conflict ahead with bob" in to_alice and "src/app.py (line 2 yours" in to_alice
    assert "bullpen diff bob -- src/app.py" in to_alice and "note send bob" in to_alice
    assert "Conflict ahead with alice" in to_bob

    (b / "src/app.py").write_text(ORIGINAL)  # bob changes course
    radar.scan(room.conn, {"bob"})
    radar.scan(room.conn, {"bob"})

    assert conflicts.open_conflicts(room.conn) == []
    [cleared] = [n for n in conflict_notes(room, "alice") if "Conflict cleared" in n]
    assert cleared.startswith("Conflict cleared (conflict #") and cleared.endswith(
        "): your work and bob's merge cleanly again (src/app.py); nothing to coordinate"
        " there now.")
    assert len([n for n in conflict_notes(room, "bob") if "Conflict cleared" in n]) == 1


def test_only_pairs_whose_paths_overlap_are_predicted(room: Room, radar: Radar) -> None:
    a, b, c = (add_session(room, n) for n in ("a", "b", "c"))
    commit_file(a, "src/app.py", "A\n", "a")
    commit_file(b, "docs.md", "B\n", "b")
    commit_file(c, "src/app.py", "A\n", "same change as a")

    radar.scan(room.conn, {"a", "b", "c"})

    assert conflicts.open_conflicts(room.conn) == []  # a and c made the same change
    views = {name: radar._views[name].commit for name in "abc"}
    assert set(radar._git._predictions) == {(views["a"], views["c"])}


def test_a_session_is_told_when_the_base_moved_under_its_lines(room: Room,
                                                               radar: Radar) -> None:
    repo = room.home.parent
    a = add_session(room, "alice")
    commit_file(a, "src/app.py", "def handler():\n    return 'alice'\n", "alice's")
    radar.scan(room.conn, {"alice"})
    assert conflicts.open_conflicts(room.conn) == []

    on_main = commit_file(repo, "src/app.py", "def handler():\n    return 'main'\n", "main")
    radar.scan(room.conn, {"main"})

    [conflict] = conflicts.open_conflicts(room.conn)
    assert (conflict.a, conflict.b, conflict.with_base) == ("alice", "main", True)
    assert conflict.b_commits == (on_main[:7],)
    [note] = conflict_notes(room, "alice")
    assert "will not merge with main in src/app.py" in note and "git merge main" in note
    assert note.startswith("Conflict ahead (conflict #")

    listed = run_cli("conflicts", "--json", cwd=repo, env={"BULLPEN_HOME": str(room.home)})
    [shown] = json.loads(listed.stdout)
    assert shown["files"] == [{"path": "src/app.py", "a_lines": [[2, 2]], "b_lines": [[2, 2]]}]
    assert shown["commits"]["main"] == [on_main[:7]] and shown["cleared_at"] is None


def test_a_stopped_session_clears_its_conflicts(room: Room, radar: Radar) -> None:
    a, b = add_session(room, "alice"), add_session(room, "bob")
    commit_file(a, "src/app.py", "A\n", "a")
    commit_file(b, "src/app.py", "B\n", "b")
    radar.scan(room.conn, {"alice", "bob"})
    assert len(conflicts.open_conflicts(room.conn)) == 1

    sessions.update(room.conn, "bob", desired="stopped")
    radar.scan(room.conn, set())

    assert conflicts.open_conflicts(room.conn) == []


def test_a_stop_and_restart_with_no_code_change_sends_no_conflict_note(
        room: Room, radar: Radar) -> None:
    a, b = add_session(room, "alice"), add_session(room, "bob")
    commit_file(a, "src/app.py", "A\n", "a")
    commit_file(b, "src/app.py", "B\n", "b")
    radar.scan(room.conn, {"alice", "bob"})
    [first] = conflicts.open_conflicts(room.conn)
    told = conflict_notes(room, "alice"), conflict_notes(room, "bob")
    assert [len(n) for n in told] == [1, 1]

    for _ in range(2):  # bob stopped and restarted (twice), his branch as it was
        sessions.update(room.conn, "bob", desired="stopped")
        radar.scan(room.conn, set())
        assert conflicts.open_conflicts(room.conn) == []
        sessions.update(room.conn, "bob", desired="running")
        radar.scan(room.conn, {"bob"})
        assert [c.id for c in conflicts.open_conflicts(room.conn)] == [first.id]
    assert (conflict_notes(room, "alice"), conflict_notes(room, "bob")) == told

    sessions.update(room.conn, "bob", desired="stopped")  # bob changes course while away
    radar.scan(room.conn, set())
    git(b, "reset", "-q", "--hard", "HEAD~1")
    sessions.update(room.conn, "bob", desired="running")
    radar.scan(room.conn, {"bob"})
    assert conflicts.open_conflicts(room.conn) == []
    for name in ("alice", "bob"):  # a change of prediction: told once
        assert len([n for n in conflict_notes(room, name) if "Conflict cleared" in n]) == 1


def test_an_undone_edit_nobody_reported_never_raises_a_false_conflict(
        room: Room, radar: Radar) -> None:
    a, b = add_session(room, "alice"), add_session(room, "bob")
    (b / "docs.md").write_text("bob's notes\n")
    (b / "src/app.py").write_text("def handler():\n    return 'bob'\n")
    radar.scan(room.conn, {"alice": None, "bob": {"docs.md", "src/app.py"}})
    (b / "src/app.py").write_text(ORIGINAL)  # undone: back to HEAD, no change recorded
    (b / "docs.md").write_text("more notes\n")
    radar.scan(room.conn, {"bob": {"docs.md"}})  # only what the watcher reported

    commit_file(a, "src/app.py", "def handler():\n    return 'alice'\n", "alice's")
    radar.scan(room.conn, {"alice": None})

    assert conflicts.open_conflicts(room.conn) == []
    assert conflict_notes(room, "alice") == conflict_notes(room, "bob") == []
