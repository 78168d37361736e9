"""The notifier reading the store's own events (real SQLite and PostgreSQL, real Apprise
to a real receiver): a question is told once however its status flickers, again once the
session stopped asking and the quiet time passed; a failed landing in the audit is told;
events not chosen in `events:` are not."""

from __future__ import annotations

import time

import pytest

from board import audit, events, sessions, store
from board.authority import Power
from board.room import Room
from board.vocabulary import SessionStatus
from tests.integration.test_notify import told
from tests.notify_receiver import hanging_port, receiver
from workers.coordinator import notifier as notifier_module
from workers.coordinator.notifier import Notifier
from workers.coordinator.notify_sender import FLUSH

pytestmark = pytest.mark.both_stores


def _feed(room: Room, notifier: Notifier, cursor: int) -> int:
    """Hand the notifier every event after `cursor`, as the loop does; the new cursor."""
    for event in events.since(room.conn, cursor):
        notifier.heard(room.conn, event)
        cursor = event.id
    notifier.follow(room.conn)
    return cursor


def test_a_question_is_told_once_per_asking(room: Room, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(notifier_module, "REPEAT_QUIET", 0.5)
    sessions.register(room.conn, "bob")
    with receiver() as got:
        store.write_local(room.home, notify=[got.url])
        notifier = Notifier(room.home, room.conn)
        cursor = _feed(room, notifier, 0)
        for status in (SessionStatus.NEEDS_INPUT, SessionStatus.WORKING,
                       SessionStatus.NEEDS_INPUT):  # a flicker of the screen
            sessions.set_status(room.conn, "bob", status, reason="Deploy? (y/n)"
                                if status == SessionStatus.NEEDS_INPUT else None)
            cursor = _feed(room, notifier, cursor)
        told(got, r"^bob asks: Deploy\? \(y/n\)$")
        sessions.set_status(room.conn, "bob", SessionStatus.IDLE)  # answered
        time.sleep(0.6)  # the quiet time passes
        sessions.set_status(room.conn, "bob", SessionStatus.NEEDS_INPUT, reason="Deploy? (y/n)")
        _feed(room, notifier, cursor)
        told(got, r"^bob asks: Deploy", count=2)
        notifier.stop()
    assert len([line for line in got.lines() if line.startswith("bob asks")]) == 2


def test_a_failed_landing_is_told_and_unchosen_events_are_not(room: Room) -> None:
    sessions.register(room.conn, "carol")
    with receiver() as got:
        store.write_local(room.home, notify={"urls": [got.url], "events": ["landing"]})
        audit.record(room.conn, "operator", Power.LAND.value, "carol", "failed",
                     "before the notifier: not told")
        notifier = Notifier(room.home, room.conn)  # its tail starts at the audit's end
        audit.record(room.conn, "operator", Power.LAND.value, "carol", audit.STARTED, "merge")
        audit.record(room.conn, "operator", Power.LAND.value, "carol", "failed",
                     "the check failed: exit 1")
        sessions.set_status(room.conn, "carol", SessionStatus.NEEDS_INPUT, reason="Sure?")
        _feed(room, notifier, 0)
        [line] = told(got, r"^landing carol")
        assert line == "landing carol failed: the check failed: exit 1"
        notifier.stop()  # sends what it has queued first
    assert got.lines() == [line]  # no question: `events:` chose landings only


def test_receivers_that_hang_hold_the_coordinators_stop_one_flush_at_most(
        room: Room) -> None:
    sessions.register(room.conn, "bob")
    with hanging_port() as one, hanging_port() as two, hanging_port() as three:
        store.write_local(room.home, notify=[f"json://127.0.0.1:{port}"
                                             for port in (one, two, three)])
        notifier = Notifier(room.home, room.conn)
        sessions.set_status(room.conn, "bob", SessionStatus.NEEDS_INPUT, reason="Go? (y/n)")
        _feed(room, notifier, 0)
        sessions.set_status(room.conn, "bob", SessionStatus.IDLE)
        sessions.set_status(room.conn, "bob", SessionStatus.NEEDS_INPUT, reason="And? (y/n)")
        _feed(room, notifier, 0)  # a second message queued behind each hanging send
        start = time.monotonic()
        notifier.stop()
        took = time.monotonic() - start
    print(f"stop with 3 hanging receivers: {took:.2f} s")
    assert took < FLUSH + 0.5
