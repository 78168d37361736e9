"""The dispatcher's pings, exactly once, straight from the store's events."""

from __future__ import annotations

import pytest

from board import events, notes, sessions, tasks
from board.identity import Caller
from board.room import Room
from workers.agents import framing
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


def test_a_handoff_reads_well_and_keeps_the_summary_whole_when_the_task_is_long(
        room: Room) -> None:
    """A long task title and body never push the parent's summary out of the typed
    line; a title with its own period gets no second one; bullpen is named, not a path."""
    for name in ("research", "coder"):
        sessions.register(room.conn, name)
    research = tasks.add(room.conn, OPERATOR, "gather usage", assignee="research")
    title = ("Implement the endpoint exactly as research describes, with paging, auth,"
             " rate limits, caching, metrics and a changelog entry for the release.")
    code = tasks.add(room.conn, OPERATOR, title, body="Details follow. " * 300,
                     assignee="coder", after=[research.id])
    summary = ("Usage peaks at noon; the table is in data/usage.md. " * 15
               + "LAST: the EU region needs its own quota.")
    tasks.claim(room.conn, Caller("research"), research.id)
    tasks.done(room.conn, Caller("research"), research.id, summary=summary)
    run_dispatcher(room)
    [ping] = notes.pending(room.conn, "coder")
    typed = framing.typed_form(ping)
    assert f"Handoff from research (task #{research.id} gather usage): {summary}" in typed
    assert f"bullpen task claim {code.id}" in typed and "/bin/bullpen" not in typed
    assert ".." not in ping.body and "release. ⏎" in typed
    assert "(full text: bullpen note show" not in typed  # nothing of the summary was cut
    assert title in typed and 0 < typed.count("Details follow.") < 300  # the body gave way
