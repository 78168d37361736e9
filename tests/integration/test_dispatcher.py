"""The dispatcher's pings, exactly once, straight from the store's events."""

from __future__ import annotations

import pytest

from board import events, notes, sessions, tasks
from board.identity import Caller
from board.room import Room
from workers.coordinator.pings import Dispatcher

pytestmark = pytest.mark.both_stores

OPERATOR = Caller("operator")


def run_dispatcher(room: Room) -> None:
    dispatcher = Dispatcher(room.conn)
    for event in events.since(room.conn, dispatcher.cursor, limit=10_000):
        dispatcher.handle(event)
    dispatcher.save()


def test_ready_task_pings_its_assignee_with_the_parents_summaries(room: Room) -> None:
    for name in ("research", "coder"):
        sessions.register(room.conn, name)
    research = tasks.add(room.conn, OPERATOR, "gather usage", assignee="research")
    code = tasks.add(room.conn, OPERATOR, "build endpoint", assignee="coder",
                     after=[research.id])
    run_dispatcher(room)
    assert [n.kind for n in notes.pending(room.conn, "coder")] == []
    tasks.claim(room.conn, Caller("research"), research.id)
    tasks.done(room.conn, Caller("research"), research.id, summary="peak at noon, see data")
    run_dispatcher(room)
    [ping] = notes.pending(room.conn, "coder")
    assert ping.kind == "handoff" and ping.task == code.id
    assert "peak at noon, see data" in ping.body and f"#{code.id}" in ping.body
    # Replaying every event from the start (a coordinator that lost its cursor) adds nothing.
    room.conn.execute("DELETE FROM meta")
    run_dispatcher(room)
    assert len(notes.pending(room.conn, "coder")) == 1
    assert len(notes.pending(room.conn, "research")) == 1  # its own task, ready at once


def test_assigning_a_ready_task_pings_the_new_assignee(room: Room) -> None:
    sessions.register(room.conn, "helper")
    task = tasks.add(room.conn, OPERATOR, "triage the bug reports")
    run_dispatcher(room)
    tasks.assign(room.conn, OPERATOR, task.id, "helper")
    run_dispatcher(room)
    [ping] = notes.pending(room.conn, "helper")
    assert "triage the bug reports" in ping.body


def test_commit_pings_subscribers_once(room: Room) -> None:
    from board import alerts
    for name in ("coder", "reviewer"):
        sessions.register(room.conn, name)
    sessions.update(room.conn, "reviewer", on_commit="coder")
    alerts.record_change(room.conn, "coder", ["src/app.py"], "abc123def4567", "add endpoint")
    run_dispatcher(room)
    run_dispatcher(room)
    [ping] = notes.pending(room.conn, "reviewer")
    assert ping.kind == "ping" and "abc123def456" in ping.body and "add endpoint" in ping.body
    assert "src/app.py" in ping.body and notes.pending(room.conn, "coder") == []
