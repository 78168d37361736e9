"""Small named values the coordinator keeps in the store (the `meta` table).

Its event cursor (how far the dispatcher has read the log), each session branch's last
seen head (so start-up catches up on commits made meanwhile) and whether the last
coordinator stopped cleanly. Each write is its own short transaction.
"""

from __future__ import annotations

from board.connection import Connection
from board.db import write


def get_mark(conn: Connection, key: str) -> str | None:
    """The value stored under `key`, or None when it was never set."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def set_mark(conn: Connection, key: str, value: str) -> None:
    """Store `value` under `key`, replacing what was there."""
    with write(conn):
        conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key)"
                     " DO UPDATE SET value = excluded.value", (key, value))


def down_key(machine: str | None) -> str:
    """Where `down` notes that it stopped this machine's part of the room (`up` clears
    it): doctor tells a room brought down from one that crashed."""
    return f"room_down:{machine or ''}"
