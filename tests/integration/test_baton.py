"""The baton carries code: a dependent's worktree takes in its parents' final commits when
it is handed its task, and never loses or overwrites work of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from board import events, notes, sessions, tasks
from board.identity import Caller
from board.room import Room
from tests.conftest import commit_file, git
from workers.coordinator.pings import Dispatcher
from worktrees import create_worktree

OPERATOR = Caller("operator")


def run_dispatcher(room: Room) -> None:
    dispatcher = Dispatcher(room.conn)
    for event in events.since(room.conn, dispatcher.cursor, limit=10_000):
        dispatcher.handle(event)
    dispatcher.save()


def add_session(room: Room, name: str, base_mode: str | None = None,
                machine: str | None = None) -> Path:
    info = create_worktree(room.home.parent, name)
    sessions.register(room.conn, name, branch=info.branch, worktree=str(info.path),
                      base=info.base_commit, machine=machine)
    if base_mode:
        sessions.update(room.conn, name, base_mode=base_mode)
    return info.path


def head(path: Path) -> str:
    return git(path, "rev-parse", "HEAD").strip()


def plan(room: Room, parents: list[str], child: str = "coder") -> int:
    parent_tasks = [tasks.add(room.conn, OPERATOR, f"{p}'s part", assignee=p) for p in parents]
    task = tasks.add(room.conn, OPERATOR, "build it", assignee=child,
                     after=[t.id for t in parent_tasks])
    run_dispatcher(room)
    for parent, parent_task in zip(parents, parent_tasks, strict=True):
        tasks.claim(room.conn, Caller(parent), parent_task.id)
        tasks.done(room.conn, Caller(parent), parent_task.id, summary=f"{parent} done")
    return task.id


def handoff(room: Room, child: str = "coder") -> str:
    run_dispatcher(room)
    [ping] = [n for n in notes.pending(room.conn, child) if n.kind == "handoff"]
    return ping.body


def test_one_parent_its_head_is_in_the_worktree_when_the_handoff_is_sent(room: Room) -> None:
    research, coder = add_session(room, "research"), add_session(room, "coder")
    tip = commit_file(research, "data/usage.md", "83% JSON\n", "data")
    plan(room, ["research"])

    body = handoff(room)

    assert head(coder) == tip and (coder / "data/usage.md").read_text() == "83% JSON\n"
    assert body.endswith(f"Your worktree now holds commit {tip[:7]} of research: you start"
                         " from it, no sync needed.")
    run_dispatcher(room)  # replayed: no second handoff, nothing moved
    assert len([n for n in notes.pending(room.conn, "coder") if n.kind == "handoff"]) == 1


def test_several_parents_are_merged(room: Room) -> None:
    a, b, coder = (add_session(room, n) for n in ("a", "b", "coder"))
    commit_file(a, "a.md", "a\n", "a")
    commit_file(b, "b.md", "b\n", "b")
    plan(room, ["a", "b"])

    body = handoff(room)

    assert (coder / "a.md").exists() and (coder / "b.md").exists()
    assert "holds commits " in body and " of a and " in body
    assert " of b: you start from them, no sync needed." in body


def test_parents_that_conflict_leave_the_dependent_on_the_base_and_say_so(room: Room) -> None:
    a, b, coder = (add_session(room, n) for n in ("a", "b", "coder"))
    commit_file(a, "src/app.py", "A\n", "a")
    commit_file(b, "src/app.py", "B\n", "b")
    before = head(coder)
    plan(room, ["a", "b"])

    body = handoff(room)

    assert head(coder) == before
    assert ("Not merged: the work of a and the work of b conflict in src/app.py; you start"
            " from the base") in body


def test_uncommitted_work_is_kept_untouched_and_the_handoff_says_why(room: Room) -> None:
    research, coder = add_session(room, "research"), add_session(room, "coder")
    commit_file(research, "data/usage.md", "83% JSON\n", "data")
    (coder / "src/app.py").write_text("my unsaved edit\n")
    (coder / "notes.txt").write_text("scratch\n")
    before, index = head(coder), git(coder, "ls-files", "--stage")
    plan(room, ["research"])

    body = handoff(room)

    assert head(coder) == before and git(coder, "ls-files", "--stage") == index
    assert (coder / "src/app.py").read_text() == "my unsaved edit\n"
    assert (coder / "notes.txt").read_text() == "scratch\n"
    assert "Not merged" in body and "uncommitted changes (src/app.py, notes.txt)" in body
    assert "run bullpen sync research to take in the work of research." in body


def test_own_commits_get_a_clean_merge(room: Room) -> None:
    research, coder = add_session(room, "research"), add_session(room, "coder")
    commit_file(research, "data/usage.md", "83% JSON\n", "data")
    mine = commit_file(coder, "src/other.py", "x = 1\n", "mine")
    plan(room, ["research"])

    body = handoff(room)

    assert git(coder, "merge-base", "--is-ancestor", mine, "HEAD") == ""
    assert (coder / "data/usage.md").exists() and (coder / "src/other.py").exists()
    assert body.endswith(" of research is merged into your own commits; no sync needed.")


def test_own_commits_that_conflict_are_not_touched(room: Room) -> None:
    research, coder = add_session(room, "research"), add_session(room, "coder")
    commit_file(research, "src/app.py", "research's\n", "data")
    mine = commit_file(coder, "src/app.py", "coder's\n", "mine")
    plan(room, ["research"])

    body = handoff(room)

    assert head(coder) == mine and (coder / "src/app.py").read_text() == "coder's\n"
    assert git(coder, "status", "--porcelain") == ""
    assert " of research conflicts with your own work in src/app.py; nothing was touched" in body


def test_a_parent_on_another_machine_is_named_not_skipped_silently(room: Room) -> None:
    research = add_session(room, "research", machine="beta")
    coder = add_session(room, "coder", machine="beta")
    tip = commit_file(research, "data/usage.md", "83% JSON\n", "data")
    sessions.register(room.conn, "remote", machine="alpha")  # its clone is on alpha
    before = head(coder)
    plan(room, ["research", "remote"])

    body = handoff(room)

    assert head(coder) != before and (coder / "data/usage.md").exists()
    assert body.endswith(f"Your worktree now holds commit {tip[:7]} of research: you start"
                         " from it, no sync needed. The commits of remote are on machine"
                         " alpha; not merged here (bullpen sync remote takes them in once"
                         " they are pushed).")


@pytest.mark.parametrize("mode", ["main", "main~0"])
def test_base_main_or_a_ref_carries_nothing(room: Room, mode: str) -> None:
    research = add_session(room, "research")
    coder = add_session(room, "coder", base_mode=mode)
    commit_file(research, "data/usage.md", "83% JSON\n", "data")
    before = head(coder)
    plan(room, ["research"])

    body = handoff(room)

    assert head(coder) == before and "worktree" not in body
