"""Notes passed between sessions: durable first, delivered second, read once."""

from __future__ import annotations

import sqlite3
import time

from board import events, sessions, validate
from board.db import write
from board.errors import BadInput, NotFound
from board.identity import Caller
from board.models import BROADCAST, EVERYONE, OPERATOR, Note
from board.vocabulary import EventKind, NoteKind

KINDS = tuple(NoteKind)


def _row_to_note(row: sqlite3.Row) -> Note:
    return Note(id=row["id"], sender=row["sender"], recipient=row["recipient"],
                body=row["body"], reply_to=row["reply_to"], created_at=row["created_at"],
                kind=row["kind"], task=row["task"])


def _recipients(conn: sqlite3.Connection, sender: str, to: str) -> list[str]:
    if to == EVERYONE:
        return [name for name in sessions.names(conn) if name != sender]
    if to == OPERATOR:
        return [OPERATOR]
    sessions.require(conn, to)
    return [to]


def send(conn: sqlite3.Connection, caller: Caller | str, to: str, body: str, *,
         reply_to: int | None = None, kind: str = NoteKind.NOTE, task: int | None = None) -> Note:
    """Store a note to a session, `all` or the operator, queued for each recipient.

    An identical note from the same sender still waiting for the same recipient is not
    stored twice: the waiting one is returned instead.
    """
    sender = caller.name if isinstance(caller, Caller) else caller
    validate.text(body, "note")
    if kind not in KINDS:
        raise BadInput(f"invalid note kind {kind!r}")
    with write(conn):
        recipients = _recipients(conn, sender, to)
        if reply_to is not None:
            original = visible(conn, sender, reply_to)
            if original is None:
                raise NotFound(f"note {reply_to} does not exist or was not sent to {sender}")
        stored_to = BROADCAST if to == EVERYONE else to
        repeat = _identical_pending(conn, sender, stored_to, body)
        if repeat is not None:
            return repeat
        now = time.time()
        note_id = conn.execute(
            "INSERT INTO notes (sender, recipient, body, reply_to, task, kind, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (sender, stored_to, body, reply_to, task, kind, now),
        ).lastrowid
        conn.executemany("INSERT INTO deliveries (note, recipient) VALUES (?, ?)",
                         [(note_id, name) for name in recipients])
        events.emit(conn, EventKind.NOTE_SENT, sender, note_id, to=stored_to, note_kind=kind)
    return Note(note_id, sender, stored_to, body, reply_to, now, kind, task)


def _identical_pending(conn: sqlite3.Connection, sender: str, recipient: str,
                       body: str) -> Note | None:
    row = conn.execute(
        "SELECT n.* FROM notes n JOIN deliveries d ON d.note = n.id"
        " WHERE n.sender = ? AND n.recipient = ? AND n.body = ? AND d.state = 'pending'"
        " ORDER BY n.id DESC LIMIT 1",
        (sender, recipient, body),
    ).fetchone()
    return _row_to_note(row) if row else None


def visible(conn: sqlite3.Connection, viewer: str, note_id: int) -> Note | None:
    """A note the viewer sent or received (the operator sees every note)."""
    row = conn.execute("SELECT * FROM notes WHERE id = ?", (note_id,)).fetchone()
    if row is None:
        return None
    if viewer == OPERATOR or viewer in (row["sender"], row["recipient"]):
        return _row_to_note(row)
    received = conn.execute("SELECT 1 FROM deliveries WHERE note = ? AND recipient = ?",
                            (note_id, viewer)).fetchone()
    return _row_to_note(row) if received else None


def inbox(conn: sqlite3.Connection, caller: Caller, *, mark_read: bool = True,
          include_read: bool = False) -> list[Note]:
    """The caller's notes, oldest first; unread only unless asked. Reading marks them read
    and delivered, so nothing is typed into the pane afterwards."""
    condition = "" if include_read else " AND d.read_at IS NULL"
    with write(conn):
        rows = conn.execute(
            "SELECT n.* FROM deliveries d JOIN notes n ON n.id = d.note"
            f" WHERE d.recipient = ?{condition} ORDER BY n.id",
            (caller.name,),
        ).fetchall()
        if mark_read and rows:
            now = time.time()
            ids = [row["id"] for row in rows]
            conn.executemany(
                "UPDATE deliveries SET read_at = coalesce(read_at, ?),"
                " state = CASE WHEN state = 'pending' THEN 'delivered' ELSE state END,"
                " via = coalesce(via, 'inbox'), delivered_at = coalesce(delivered_at, ?)"
                " WHERE note = ? AND recipient = ?",
                [(now, now, note_id, caller.name) for note_id in ids],
            )
            events.emit(conn, EventKind.NOTES_READ, caller.name, ids[-1], count=len(ids))
    return [_row_to_note(row) for row in rows]


def unread_count(conn: sqlite3.Connection, recipient: str) -> int:
    return conn.execute(
        "SELECT count(*) FROM deliveries WHERE recipient = ? AND read_at IS NULL", (recipient,)
    ).fetchone()[0]


def pending(conn: sqlite3.Connection, recipient: str, limit: int | None = None) -> list[Note]:
    """Notes not yet delivered to `recipient` (not typed, not pulled by a hook, not read)."""
    # No LIMIT -1 for "all": PostgreSQL refuses a negative limit, and 2**62 is no limit.
    rows = conn.execute(
        "SELECT n.* FROM deliveries d JOIN notes n ON n.id = d.note"
        " WHERE d.recipient = ? AND d.state = 'pending' ORDER BY n.id LIMIT ?",
        (recipient, 2**62 if limit is None else limit),
    ).fetchall()
    return [_row_to_note(row) for row in rows]


def mark_delivered(conn: sqlite3.Connection, recipient: str, note_ids: list[int],
                   via: str) -> int:
    """Mark notes delivered to `recipient` once; returns how many were still pending."""
    return len(claim_delivery(conn, recipient, note_ids, via))


def claim_delivery(conn: sqlite3.Connection, recipient: str, note_ids: list[int],
                   via: str) -> list[int]:
    """Mark notes delivered and return the ids this call changed from pending.

    The state change is conditional, so two deliverers racing never both win a note.
    """
    if not note_ids:
        return []
    now = time.time()
    claimed = []
    with write(conn):
        for note_id in note_ids:
            if conn.execute(
                "UPDATE deliveries SET state = 'delivered', via = ?, delivered_at = ?"
                " WHERE note = ? AND recipient = ? AND state = 'pending'",
                (via, now, note_id, recipient),
            ).rowcount:
                claimed.append(note_id)
        if claimed:
            events.emit(conn, EventKind.NOTES_DELIVERED, recipient, claimed[-1], via=via,
                        notes=claimed)
    return claimed


def take_pending(conn: sqlite3.Connection, recipient: str, via: str) -> list[Note]:
    """Atomically claim every pending note for `recipient` (a hook pulling them into a turn)."""
    with write(conn):
        notes = pending(conn, recipient)
        mark_delivered(conn, recipient, [note.id for note in notes], via)
    return notes


def delivery_state(conn: sqlite3.Connection, note_id: int, recipient: str) -> str | None:
    row = conn.execute("SELECT state FROM deliveries WHERE note = ? AND recipient = ?",
                       (note_id, recipient)).fetchone()
    return row[0] if row else None


def recent(conn: sqlite3.Connection, limit: int = 200, before_id: int | None = None) -> list[Note]:
    """The newest notes for the operator's stream, oldest first."""
    rows = conn.execute(
        "SELECT * FROM notes WHERE id < ? ORDER BY id DESC LIMIT ?",
        (before_id or 2**62, limit),
    ).fetchall()
    return [_row_to_note(row) for row in reversed(rows)]


def requeue(conn: sqlite3.Connection, recipient: str, note_ids: list[int]) -> None:
    """Put notes back in the queue after a delivery attempt failed before anything typed."""
    with write(conn):
        conn.executemany(
            "UPDATE deliveries SET state = 'pending', via = NULL, delivered_at = NULL"
            " WHERE note = ? AND recipient = ? AND state = 'delivered' AND read_at IS NULL",
            [(note_id, recipient) for note_id in note_ids])


def hold(conn: sqlite3.Connection, recipient: str, note_ids: list[int]) -> int:
    """Stop trying to type these notes (the queue is over its cap); they stay unread in
    the inbox. Returns how many were held."""
    with write(conn):
        held = sum(conn.execute(
            "UPDATE deliveries SET state = 'held' WHERE note = ? AND recipient = ?"
            " AND state = 'pending'", (note_id, recipient)).rowcount for note_id in note_ids)
        if held:
            events.emit(conn, EventKind.NOTES_HELD, recipient, note_ids[-1], count=held)
    return held
