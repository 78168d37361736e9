"""The board's rules on a real SQLite file: promotion, cycles, the claim race."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from board import events, sessions, tasks, views
from board.errors import NotFound, Refused
from board.identity import Caller
from board.room import Room
from tests.cli_runner import BULLPEN, identity

pytestmark = pytest.mark.both_stores

OPERATOR = Caller("operator")


def test_child_waits_then_becomes_ready_with_its_last_parent(room: Room) -> None:
    first = tasks.add(room.conn, OPERATOR, "research")
    second = tasks.add(room.conn, OPERATOR, "gather more")
    child = tasks.add(room.conn, OPERATOR, "code", after=[first.id, second.id])
    assert child.status == "todo" and child.waiting
    tasks.done(room.conn, OPERATOR, first.id, summary="half")
    assert tasks.get(room.conn, child.id).status == "todo"
    before = views.last_event_id(room.conn)
    _, released = tasks.done(room.conn, OPERATOR, second.id, summary="all of it")
    assert [task.id for task in released] == [child.id]
    assert tasks.get(room.conn, child.id).status == "ready"
    kinds = [(e.kind, e.ref) for e in events.since(room.conn, before)]
    # Promotion is logged in the same transaction as the parent's completion.
    assert ("task_done", second.id) in kinds and ("task_ready", child.id) in kinds


def test_waiting_task_cannot_be_started_or_finished(room: Room) -> None:
    parent = tasks.add(room.conn, OPERATOR, "research")
    child = tasks.add(room.conn, OPERATOR, "code", after=[parent.id])
    for status in ("ready", "running", "done"):
        with pytest.raises(Refused, match="waits on unfinished task"):
            tasks.move(room.conn, OPERATOR, child.id, status)
    assert tasks.get(room.conn, child.id).status == "todo"


def test_moving_parent_to_done_releases_and_reopening_holds(room: Room) -> None:
    parent = tasks.add(room.conn, OPERATOR, "research")
    child = tasks.add(room.conn, OPERATOR, "code", after=[parent.id])
    tasks.move(room.conn, OPERATOR, parent.id, "done")
    assert tasks.get(room.conn, child.id).status == "ready"
    tasks.move(room.conn, OPERATOR, parent.id, "running")
    assert tasks.get(room.conn, child.id).status == "todo"


def test_cycles_are_refused_and_nothing_is_written(room: Room) -> None:
    a = tasks.add(room.conn, OPERATOR, "a")
    b = tasks.add(room.conn, OPERATOR, "b", after=[a.id])
    c = tasks.add(room.conn, OPERATOR, "c", after=[b.id])
    before = views.last_event_id(room.conn)
    with pytest.raises(Refused, match="cycle"):
        tasks.link(room.conn, OPERATOR, c.id, a.id)
    with pytest.raises(Refused, match="itself"):
        tasks.link(room.conn, OPERATOR, a.id, a.id)
    assert tasks.get(room.conn, a.id).parents == ()
    assert views.last_event_id(room.conn) == before


def test_claim_takes_my_task_before_an_unassigned_one(room: Room) -> None:
    sessions.register(room.conn, "coder")
    tasks.add(room.conn, OPERATOR, "anyone's")
    mine = tasks.add(room.conn, OPERATOR, "mine", assignee="coder")
    claimed = tasks.claim(room.conn, Caller("coder"))
    assert claimed.id == mine.id and claimed.status == "running"
    with pytest.raises(NotFound):
        tasks.get(room.conn, 999)


def test_claiming_someone_elses_task_names_its_assignee(room: Room) -> None:
    sessions.register(room.conn, "coder")
    sessions.register(room.conn, "reviewer")
    theirs = tasks.add(room.conn, OPERATOR, "theirs", assignee="coder")
    with pytest.raises(Refused) as refused:
        tasks.claim(room.conn, Caller("reviewer"), theirs.id)
    assert str(refused.value) == (f"task {theirs.id} is ready (assigned to coder);"
                                  " it cannot be claimed")
    assert tasks.get(room.conn, theirs.id).status == "ready"


def test_two_sessions_claiming_one_task_exactly_one_wins(room: Room) -> None:
    names = [f"s{i}" for i in range(8)]
    tokens = {name: sessions.register(room.conn, name) for name in names}
    task = tasks.add(room.conn, OPERATOR, "contested")
    racers = [
        subprocess.Popen([BULLPEN, "task", "claim", str(task.id)], cwd=room.home.parent,
                         env={"PATH": "/usr/bin:/bin", **identity(room.home, n, tokens[n])},
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for n in names
    ]
    results = [(racer.wait(timeout=60), racer.stderr.read()) for racer in racers]
    winners = [code for code, _ in results if code == 0]
    losers = [err for code, err in results if code == 2]
    assert len(winners) == 1 and len(losers) == len(names) - 1
    assert all("cannot be claimed" in err for err in losers)
    claimed = tasks.get(room.conn, task.id)
    assert claimed.status == "running" and claimed.assignee in names


def test_operator_cannot_claim(room: Room) -> None:
    task = tasks.add(room.conn, OPERATOR, "x")
    with pytest.raises(Exception, match="only a session can claim"):
        tasks.claim(room.conn, OPERATOR, task.id)


def test_db_file_is_inside_main_checkout(room: Room, git_repo: Path) -> None:
    assert room.db_path == git_repo / ".bullpen" / "bullpen.db"
    assert "/.bullpen/" in (git_repo / ".git" / "info" / "exclude").read_text()


def test_a_task_is_changed_only_by_its_assignee_creator_operator_or_a_granted_session(
        room: Room, git_repo: Path) -> None:
    from board import audit, authority
    from tests.cli_runner import run_cli

    tokens = {name: sessions.register(room.conn, name) for name in ("a", "b", "boss")}
    authority.grant(room.conn, OPERATOR, "boss", [authority.Power.TASKS])
    mine = tasks.add(room.conn, Caller("a"), "research", assignee="a")
    as_b = identity(room.home, "b", tokens["b"])
    for args in (["done", str(mine.id), "--summary", "stolen"],
                 ["move", str(mine.id), "review"], ["block", str(mine.id), "mine"],
                 ["assign", str(mine.id), "b"]):
        result = run_cli("task", *args, cwd=git_repo, env=as_b)
        assert result.returncode == 2, result
        [line] = result.stderr.splitlines()
        assert line.startswith("bullpen: session 'b' may not ") and "it is a's" in line
    assert run_cli("task", "comment", str(mine.id), "hi", cwd=git_repo,
                   env=as_b).returncode == 0
    assert tasks.get(room.conn, mine.id).status == "ready"
    assert [(e.actor, e.action, e.outcome) for e in audit.entries(room.conn)
            if e.actor == "b"] == [("b", "task finish", "refused"), ("b", "task move", "refused"),
                                   ("b", "task block", "refused"),
                                   ("b", "task assign", "refused")]
    # The granted session may, and its use of the grant is audited; the owner may too.
    tasks.block(room.conn, Caller("boss"), mine.id, "waiting on the data")
    assert audit.entries(room.conn)[-1].outcome == "allowed"
    tasks.move(room.conn, Caller("a"), mine.id, "running")
    finished, _ = tasks.done(room.conn, Caller("a"), mine.id, summary="found it")
    assert finished.status == "done"
