"""A ping sent exactly once, however often the coordinator sees its cause.

The key (for example `ready:12:coder`) and the note are written in one transaction, so
a coordinator killed at any point and started again never pings twice or not at all.
"""

from __future__ import annotations

import time

from board import notes
from board.connection import Connection
from board.db import write
from board.models import Note
from board.vocabulary import SYSTEM_SENDER, NoteKind


def send_once(conn: Connection, key: str, to: str, body: str, *, kind: NoteKind,
              task: int | None = None, sender: str = SYSTEM_SENDER) -> Note | None:
    """Send the note unless a note with this key was sent before; returns it or None."""
    with write(conn):
        inserted = conn.execute(
            "INSERT OR IGNORE INTO dispatched (key, created_at) VALUES (?, ?)",
            (key, time.time())).rowcount
        if not inserted:
            return None
        note = notes.send(conn, sender, to, body, kind=kind, task=task)
        conn.execute("UPDATE dispatched SET note = ? WHERE key = ?", (note.id, key))
    return note


def was_sent(conn: Connection, key: str) -> bool:
    """Whether the note with this key was sent already."""
    return conn.execute("SELECT 1 FROM dispatched WHERE key = ?", (key,)).fetchone() is not None
