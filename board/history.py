"""Read-only questions about what already happened in the room.

The demo checks its story here (was the coder's handoff typed into its pane? did the
reviewer answer the coder's note?), and the dispatcher looks up the change behind a
commit event. Nothing here writes; every statement is plain SQL both stores accept.
"""

from __future__ import annotations

import json

from board.connection import Connection, Row
from board.models import Change, Note
from board.vocabulary import DeliveryChannel, DeliveryState, NoteKind


def _row_to_change(row: Row) -> Change:
    return Change(id=row["id"], changed_by=row["changed_by"],
                  paths=tuple(json.loads(row["paths"])), commit=row["commit_sha"],
                  message=row["message"], created_at=row["created_at"])


def _row_to_note(row: Row) -> Note:
    return Note(id=row["id"], sender=row["sender"], recipient=row["recipient"],
                body=row["body"], reply_to=row["reply_to"], created_at=row["created_at"],
                kind=row["kind"], task=row["task"])


def change(conn: Connection, change_id: int | None) -> Change | None:
    """One recorded change by id, or None."""
    row = conn.execute("SELECT * FROM changes WHERE id = ?", (change_id,)).fetchone()
    return _row_to_change(row) if row else None


def changes_by(conn: Connection, changed_by: str) -> list[Change]:
    """Every change a session (or the main checkout) made, oldest first."""
    rows = conn.execute("SELECT * FROM changes WHERE changed_by = ? ORDER BY id",
                        (changed_by,)).fetchall()
    return [_row_to_change(row) for row in rows]


def first_note(conn: Connection, sender: str, recipient: str, *,
               kind: NoteKind | None = None, reply_to: int | None = None) -> Note | None:
    """The oldest note from `sender` to `recipient` (optionally of a kind, or answering
    note `reply_to`), or None."""
    query = "SELECT * FROM notes WHERE sender = ? AND recipient = ?"
    params: list[object] = [sender, recipient]
    if kind is not None:
        query += " AND kind = ?"
        params.append(kind)
    if reply_to is not None:
        query += " AND reply_to = ?"
        params.append(reply_to)
    row = conn.execute(query + " ORDER BY id LIMIT 1", params).fetchone()
    return _row_to_note(row) if row else None


def first_typed(conn: Connection, recipient: str, kind: NoteKind,
                body_like: str = "%") -> tuple[Note, float] | None:
    """The oldest note of `kind` to `recipient` whose body matches the SQL LIKE pattern
    and that was typed into its pane, with when it was typed; or None."""
    row = conn.execute(
        "SELECT n.*, d.delivered_at AS typed_at FROM notes n"
        " JOIN deliveries d ON d.note = n.id"
        " WHERE d.recipient = ? AND n.kind = ? AND n.body LIKE ? AND d.state = ?"
        " AND d.via = ? ORDER BY n.id LIMIT 1",
        (recipient, kind, body_like, DeliveryState.TYPED, DeliveryChannel.PANE),
    ).fetchone()
    return (_row_to_note(row), row["typed_at"]) if row else None


def typed_at(conn: Connection, note_id: int | None, recipient: str) -> float | None:
    """When note `note_id` was typed into `recipient`'s pane, or None (not typed)."""
    row = conn.execute(
        "SELECT delivered_at FROM deliveries WHERE note = ? AND recipient = ? AND state = ?"
        " AND via = ?",
        (note_id, recipient, DeliveryState.TYPED, DeliveryChannel.PANE)).fetchone()
    return row[0] if row else None
