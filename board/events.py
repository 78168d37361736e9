"""The append-only event log: every change writes one, so readers tail by id."""

from __future__ import annotations

import json
import sqlite3
import time

from board.models import Event


def emit(conn: sqlite3.Connection, kind: str, session: str | None = None,
         ref: int | None = None, **data: object) -> int:
    """Append an event inside the caller's write transaction; returns its id."""
    cursor = conn.execute(
        "INSERT INTO events (kind, session, ref, data, created_at) VALUES (?, ?, ?, ?, ?)",
        (kind, session, ref, json.dumps(data) if data else None, time.time()),
    )
    return cursor.lastrowid


def since(conn: sqlite3.Connection, after_id: int, limit: int = 1000) -> list[Event]:
    """Events with id greater than `after_id`, oldest first."""
    rows = conn.execute(
        "SELECT * FROM events WHERE id > ? ORDER BY id LIMIT ?", (after_id, limit)
    ).fetchall()
    return [
        Event(row["id"], row["kind"], row["session"], row["ref"],
              json.loads(row["data"]) if row["data"] else {}, row["created_at"])
        for row in rows
    ]


def last_id(conn: sqlite3.Connection) -> int:
    return conn.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0]
