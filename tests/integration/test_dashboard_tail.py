"""The dashboard's event tail sees another process's note promptly on both stores (woken
by LISTEN/NOTIFY on PostgreSQL instead of polling the server)."""

from __future__ import annotations

import threading

import pytest

from board import notes, sessions
from board.db import connect
from board.room import Room
from tests.waiting import wait_until
from tui.dashboard.tail import EventTail

pytestmark = pytest.mark.both_stores


def test_a_note_from_another_connection_reaches_the_tail(room: Room) -> None:
    sessions.register(room.conn, "b")
    seen: list[int] = []
    ready = threading.Event()

    def on_delta(delta) -> None:
        seen.append(delta.last_event)
        ready.set()

    tail = EventTail(room.db_path, on_delta)
    tail.start()
    try:
        assert ready.wait(15)  # the snapshot
        other = connect(room.db_path)
        notes.send(other, "operator", "b", "for the dashboard")
        other.close()
        newest = room.conn.execute("SELECT max(id) FROM events").fetchone()[0]
        wait_until(lambda: seen and seen[-1] >= newest, 5,
                   message=lambda: f"event {newest} in the tail's deltas {seen[-3:]}")
    finally:
        tail.stop()
