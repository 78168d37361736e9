"""The dashboard's read views in `board` (views, attention, columns) on both stores: the
same functions and SQL whether the room is a SQLite file or a PostgreSQL database."""

from __future__ import annotations

import pytest

from board import alerts, attention, columns, notebook, notes, reads, sessions, tasks, views
from board.errors import Refused
from board.identity import Caller
from board.room import Room

pytestmark = pytest.mark.both_stores


def test_cards_notes_and_the_operators_notebook_view(room: Room) -> None:
    for name in ("research", "coder"):
        sessions.register(room.conn, name)
    first = tasks.add(room.conn, room.caller, "Gather", assignee="research")
    second = tasks.add(room.conn, room.caller, "Build", after=[first.id])
    cards = views.all_cards(room.conn)
    assert [(card.id, card.status, card.parents) for card in cards] == [
        (first.id, "ready", ()), (second.id, "todo", (first.id,))]
    found, gone = views.tasks_by_ids(room.conn, [second.id, 999])
    assert ([card.id for card in found], gone) == ([second.id], {999})
    note = notes.send(room.conn, Caller("research"), "coder", "data is in")
    assert [n.id for n in views.notes_after(room.conn, 0)] == [note.id]
    notebook.write_entry(room.conn, Caller("coder"), "scratch", private=True)
    notebook.write_entry(room.conn, Caller("coder"), "shared fact")
    assert [(e.body, e.private) for e in views.notebook_of(room.conn, "coder")] == [
        ("scratch", True), ("shared fact", False)]
    assert views.last_event_id(room.conn) > 0
    assert views.unread_counts(room.conn) == {"coder": 1}


def test_delivery_states_and_inbox_as_the_operator_sees_them(room: Room) -> None:
    for name in ("research", "coder", "reviewer"):
        sessions.register(room.conn, name)
    research = Caller("research")
    read = notes.send(room.conn, research, "coder", "read me")
    notes.inbox(room.conn, Caller("coder"))  # coder reads it
    handed = notes.send(room.conn, research, "reviewer", "handed to a turn")
    notes.take_pending(room.conn, "reviewer", via="hook")
    broadcast = notes.send(room.conn, research, "all", "standup")
    states = attention.deliveries_of(room.conn, [read.id, handed.id, broadcast.id])
    assert [(d.recipient, d.state) for d in states[read.id]] == [("coder", "read")]
    assert [(d.recipient, d.state) for d in states[handed.id]] == [("reviewer", "handed")]
    assert sorted(d.state for d in states[broadcast.id]) == ["queued", "queued"]
    inbox = attention.inbox_of(room.conn, "coder")
    assert [(note.id, delivery.state) for note, delivery in inbox] == [
        (read.id, "read"), (broadcast.id, "queued")]
    assert notes.unread_count(room.conn, "coder") == 1  # looking marked nothing read
    assert attention.held_notes(room.conn) == []
    assert attention.status_reasons(room.conn) == {}


def test_alert_rows_and_column_moves(room: Room) -> None:
    sessions.register(room.conn, "coder")
    sessions.register(room.conn, "reviewer")
    reads.record(room.conn, "reviewer", ["src/app.py"])
    alerts.record_change(room.conn, "coder", ["src/app.py"])
    [row] = views.alerts_with_state(room.conn)
    assert (row.alert.session, row.alert.path, row.state) == ("reviewer", "src/app.py",
                                                              "queued")
    task = tasks.add(room.conn, room.caller, "Ship it")
    assert columns.move_by(room.conn, room.caller, task.id, 1).status == "running"
    assert columns.move_by(room.conn, room.caller, task.id, -1).status == "ready"
    tasks.move(room.conn, room.caller, task.id, "archived")
    with pytest.raises(Refused, match="no column beyond"):
        columns.move_by(room.conn, room.caller, task.id, 1)
    assert columns.neighbour("triage", -1) is None
