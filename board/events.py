"""The append-only event log: every change writes one, so readers tail by id."""

from __future__ import annotations

import json
import time

from board.connection import Connection, Row, inserted_id
from board.models import Event
from board.vocabulary import EventKind


def emit(conn: Connection, kind: EventKind, session: str | None = None,
         ref: int | None = None, **data: object) -> int:
    """Append an event inside the caller's write transaction; returns its id."""
    cursor = conn.execute(
        "INSERT INTO events (kind, session, ref, data, created_at) VALUES (?, ?, ?, ?, ?)",
        (kind, session, ref, json.dumps(data) if data else None, time.time()),
    )
    return inserted_id(cursor)


def since(conn: Connection, after_id: int, limit: int = 1000) -> list[Event]:
    """Events with id greater than `after_id`, oldest first."""
    rows = conn.execute(
        "SELECT * FROM events WHERE id > ? ORDER BY id LIMIT ?", (after_id, limit)
    ).fetchall()
    return [_row_to_event(row) for row in rows]


def _row_to_event(row: Row) -> Event:
    return Event(row["id"], row["kind"], row["session"], row["ref"],
                 json.loads(row["data"]) if row["data"] else {}, row["created_at"])


def first(conn: Connection, kind: EventKind, ref: int | None) -> Event | None:
    """The oldest event of `kind` about `ref` (a task, note or change id), or None."""
    row = conn.execute("SELECT * FROM events WHERE kind = ? AND ref = ? ORDER BY id LIMIT 1",
                       (kind, ref)).fetchone()
    return _row_to_event(row) if row else None
