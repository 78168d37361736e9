"""Notes passed between sessions: durable first, delivered second, read once."""

from __future__ import annotations

import time

from board import chains, deliveries, events, sessions, validate
from board.connection import Connection, Row, inserted_id
from board.db import write
from board.errors import BadInput, NotFound
from board.identity import Caller
from board.models import BROADCAST, EVERYONE, OPERATOR, Note
from board.vocabulary import DeliveryChannel, DeliveryState, EventKind, HoldReason, NoteKind

KINDS = tuple(NoteKind)
# The state a note given through a channel ends in (any other way: read).
_GIVEN_VIA: dict[str, DeliveryState] = {DeliveryChannel.PANE: DeliveryState.TYPED,
                                        DeliveryChannel.HOOK: DeliveryState.HANDED}


def _row_to_note(row: Row) -> Note:
    return Note(id=row["id"], sender=row["sender"], recipient=row["recipient"],
                body=row["body"], reply_to=row["reply_to"], created_at=row["created_at"],
                kind=row["kind"], task=row["task"])


def _recipients(conn: Connection, sender: str, to: str) -> list[str]:
    if to == EVERYONE:
        return [name for name in sessions.names(conn) if name != sender]
    if to == OPERATOR:
        return [OPERATOR]
    sessions.require(conn, to)
    return [to]


def send(conn: Connection, caller: Caller | str, to: str, body: str, *,
         reply_to: int | None = None, kind: str = NoteKind.NOTE, task: int | None = None,
         sender_head: str | None = None) -> Note:
    """Store a note to a session, `all` or the operator, queued for each recipient.

    An identical note from the same sender still waiting for the same recipient is not
    stored twice: the waiting one is returned instead. The note joins its chain
    (board/chains.py); past the loop guard's limit its deliveries are held, and past the
    sender's rate limit it is refused. `sender_head`: the commit the sender's worktree
    is at (workers.worktree_head), progress the loop guard sees before the watcher records it.
    """
    sender = caller.name if isinstance(caller, Caller) else caller
    validate.text(body, "note")
    if kind not in KINDS:
        raise BadInput(f"invalid note kind {kind!r}")
    chains.admit(conn, sender, reply_to)
    with write(conn):
        recipients = _recipients(conn, sender, to)
        if reply_to is not None:
            original = visible(conn, sender, reply_to)
            if original is None:
                raise NotFound(f"note {reply_to} does not exist or was not sent to {sender}")
        stored_to = BROADCAST if to == EVERYONE else to
        repeat = _identical_waiting(conn, sender, stored_to, body, kind, task, reply_to)
        if repeat is not None:
            return repeat
        now = time.time()
        note_id = inserted_id(conn.execute(
            "INSERT INTO notes (sender, recipient, body, reply_to, task, kind, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (sender, stored_to, body, reply_to, task, kind, now),
        ))
        entry = chains.enter(conn, note_id, sender, recipients,
                             chains.chain_for(conn, sender, reply_to), now, sender_head)
        state, held = ((DeliveryState.HELD, HoldReason.LOOP) if entry.held
                       else (DeliveryState.QUEUED, None))
        conn.executemany("INSERT INTO deliveries (note, recipient, state, held_reason)"
                         " VALUES (?, ?, ?, ?)",
                         [(note_id, name, state, held) for name in recipients])
        events.emit(conn, EventKind.NOTE_SENT, sender, note_id, to=stored_to, note_kind=kind,
                    chain=entry.chain)
        if entry.held and recipients:
            events.emit(conn, EventKind.NOTES_HELD, recipients[0], note_id,
                        count=len(recipients), reason=HoldReason.LOOP, chain=entry.chain)
    return Note(note_id, sender, stored_to, body, reply_to, now, kind, task)


def _identical_waiting(conn: Connection, sender: str, recipient: str, body: str,
                       kind: str, task: int | None, reply_to: int | None) -> Note | None:
    """The same note (sender, recipient, body, kind, task and reply) still waiting."""
    # `= ?` never matches NULL, so a missing task or reply is compared with IS NULL.
    task_is = "n.task IS NULL" if task is None else "n.task = ?"
    reply_is = "n.reply_to IS NULL" if reply_to is None else "n.reply_to = ?"
    values = [v for v in (task, reply_to) if v is not None]
    row = conn.execute(
        "SELECT n.* FROM notes n JOIN deliveries d ON d.note = n.id"
        " WHERE n.sender = ? AND n.recipient = ? AND n.body = ? AND n.kind = ?"
        f" AND {task_is} AND {reply_is} AND d.state IN (?, ?)"
        " ORDER BY n.id DESC LIMIT 1",
        (sender, recipient, body, kind, *values, *deliveries.WAITING),
    ).fetchone()
    return _row_to_note(row) if row else None


def visible(conn: Connection, viewer: str, note_id: int) -> Note | None:
    """A note the viewer sent or received (the operator sees every note)."""
    row = conn.execute("SELECT * FROM notes WHERE id = ?", (note_id,)).fetchone()
    if row is None:
        return None
    if viewer == OPERATOR or viewer in (row["sender"], row["recipient"]):
        return _row_to_note(row)
    received = conn.execute("SELECT 1 FROM deliveries WHERE note = ? AND recipient = ?",
                            (note_id, viewer)).fetchone()
    return _row_to_note(row) if received else None


def inbox(conn: Connection, caller: Caller, *, mark_read: bool = True,
          include_read: bool = False) -> list[Note]:
    """The caller's notes not yet given to it (not read, typed or handed), oldest first;
    with `include_read`, every note it received. Reading marks them read, so nothing is
    typed into the pane afterwards. A note being typed right now (claimed) is left out."""
    condition = "" if include_read else " AND d.read_at IS NULL AND d.state <> ?"
    unclaimed = () if include_read else (DeliveryState.CLAIMED,)
    query = ("SELECT n.* FROM deliveries d JOIN notes n ON n.id = d.note"
             f" WHERE d.recipient = ?{condition} AND {deliveries.HIDDEN_SQL} ORDER BY n.id")
    params = (caller.name, *unclaimed, *deliveries.HIDDEN_PARAMS)
    rows = conn.execute(query, params).fetchall()
    if not (mark_read and rows):
        # Nothing to mark: the snapshot is the answer, and the write lock is left to the
        # senders (an agent polling its inbox took it on every poll, queueing behind them).
        return [_row_to_note(row) for row in rows]
    with write(conn, waited_on=True):  # the reader is waiting for its notes
        rows = conn.execute(query, params).fetchall()  # again, under the lock it marks in
        if rows:
            now = time.time()
            ids = [row["id"] for row in rows]
            conn.executemany(
                "UPDATE deliveries SET read_at = ?, state = ?, via = ?,"
                " delivered_at = ?, held_reason = NULL"
                " WHERE note = ? AND recipient = ? AND state IN (?, ?)",
                [(now, DeliveryState.READ, DeliveryChannel.INBOX, now, note_id, caller.name,
                  *deliveries.WAITING) for note_id in ids],
            )
            if not include_read:
                chains.given(conn, caller.name, ids, now)
            events.emit(conn, EventKind.NOTES_READ, caller.name, ids[-1], count=len(ids))
    return [_row_to_note(row) for row in rows]


def unread_count(conn: Connection, recipient: str) -> int:
    """Notes the recipient has not been given yet (not read, typed or handed)."""
    return conn.execute(
        "SELECT count(*) FROM deliveries d WHERE d.recipient = ? AND d.read_at IS NULL"
        f" AND d.state <> ? AND {deliveries.HIDDEN_SQL}",
        (recipient, DeliveryState.CLAIMED, *deliveries.HIDDEN_PARAMS)).fetchone()[0]


def pending(conn: Connection, recipient: str, limit: int | None = None) -> list[Note]:
    """Notes waiting for `recipient` (not typed, not handed by a hook, not read)."""
    return deliveries.waiting(conn, recipient, limit)


def mark_delivered(conn: Connection, recipient: str, note_ids: list[int],
                   via: str) -> int:
    """Mark waiting notes given to `recipient` (typed via "pane", handed via "hook", else
    read); returns how many were still waiting."""
    state = _GIVEN_VIA.get(via, DeliveryState.READ)
    now = time.time()
    with write(conn):
        done = [note_id for note_id in note_ids if conn.execute(
            "UPDATE deliveries SET state = ?, via = ?, delivered_at = ?, read_at = ?"
            " WHERE note = ? AND recipient = ? AND state IN (?, ?)"
            " AND (held_reason IS NULL OR held_reason <> ?)",
            (state, via, now, now, note_id, recipient, *deliveries.WAITING,
             HoldReason.LOOP)).rowcount]
        if done:
            chains.given(conn, recipient, done, now)
            events.emit(conn, EventKind.NOTES_DELIVERED, recipient, done[-1], via=via, notes=done)
    return len(done)


def take_pending(conn: Connection, recipient: str,
                 via: str = DeliveryChannel.HOOK) -> list[Note]:
    """Atomically hand every waiting note for `recipient` to a hook pulling them into a turn."""
    return deliveries.hand(conn, recipient, via)


def delivery_state(conn: Connection, note_id: int, recipient: str) -> str | None:
    """queued, held, claimed, typed, handed or read (None: not addressed to `recipient`)."""
    return deliveries.state_of(conn, note_id, recipient)


def recent(conn: Connection, limit: int = 200, before_id: int | None = None) -> list[Note]:
    """The newest notes for the operator's stream, oldest first."""
    rows = conn.execute(
        "SELECT * FROM notes WHERE id < ? ORDER BY id DESC LIMIT ?",
        (before_id or 2**62, limit),
    ).fetchall()
    return [_row_to_note(row) for row in reversed(rows)]
