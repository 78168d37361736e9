"""What waits on the human, read from the store in a few queries (no writes).

Delivery states are shown in the words of issue 11 (queued, held: reason, claimed,
handed, typed, read). Stores from before that change keep `pending`/`delivered` with a
`via`; those are translated here, and columns that may not exist yet (`held_reason`,
`sessions.status_reason`) are read only when the row has them.
"""

from __future__ import annotations

from collections.abc import Iterable

from board.connection import Connection, Row
from board.models import Note
from board.records import record
from board.vocabulary import ChainState, DeliveryChannel, DeliveryState, HoldReason


@record(frozen=True)
class Delivery:
    """One recipient's copy of a note and how far it got."""

    recipient: str
    state: str  # queued | held | claimed | handed | typed | read
    reason: str | None = None  # why a held note is held


@record(frozen=True)
class HeldNote:
    """A note that will not be typed into its recipient's pane, and why. With `chain`: a
    whole conversation the loop guard holds (`note` its newest held note, `count` how
    many are held), which waits on the operator's release or end (board/loops.py)."""

    note: Note
    recipient: str
    reason: str | None
    chain: int | None = None
    count: int = 1


def _column(row: Row, name: str) -> object:
    return row[name] if name in row.keys() else None  # noqa: SIM118 - Row: `in` is values


# The two states of stores from before issue 11, which no enum knows any more.
_OLD_PENDING, _OLD_DELIVERED = "pending", "delivered"


def _given(via: str | None) -> DeliveryState:
    return DeliveryState.TYPED if via == DeliveryChannel.PANE else DeliveryState.HANDED


def state_word(state: str, via: str | None, read_at: float | None) -> str:
    """A delivery state in today's words, whichever schema stored it."""
    if read_at is not None and state in (_OLD_DELIVERED, DeliveryState.READ):
        return DeliveryState.READ if via in (None, DeliveryChannel.INBOX) else _given(via)
    if state == _OLD_PENDING:
        return DeliveryState.QUEUED
    if state == _OLD_DELIVERED:
        return _given(via)
    return state


def delivery_of(row: Row) -> Delivery:
    """A `deliveries` row in today's vocabulary, whichever schema wrote it."""
    reason = _column(row, "held_reason")
    return Delivery(row["recipient"], state_word(row["state"], row["via"], row["read_at"]),
                    str(reason) if reason else None)


def deliveries_of(conn: Connection, note_ids: Iterable[int]) -> dict[int, list[Delivery]]:
    """Each note's deliveries, by note id (notes to nobody are absent)."""
    wanted = sorted(set(note_ids))
    found: dict[int, list[Delivery]] = {}
    for start in range(0, len(wanted), 500):  # stay under SQLite's host-parameter limit
        chunk = wanted[start:start + 500]
        rows = conn.execute(
            f"SELECT * FROM deliveries WHERE note IN ({','.join('?' * len(chunk))})"
            " ORDER BY note, recipient", chunk).fetchall()
        for row in rows:
            found.setdefault(row["note"], []).append(delivery_of(row))
    return found


def held_notes(conn: Connection, limit: int = 50) -> list[HeldNote]:
    """The chains the loop guard holds (one entry each), then the other notes held back
    from their recipients' panes, oldest first."""
    rows = conn.execute(
        "SELECT n.*, d.recipient AS d_recipient, d.state AS d_state, d.via AS d_via,"
        " d.read_at AS d_read_at, d.* FROM deliveries d JOIN notes n ON n.id = d.note"
        " WHERE d.state = ? AND d.read_at IS NULL"
        " AND (d.held_reason IS NULL OR d.held_reason <> ?) ORDER BY n.id LIMIT ?",
        (DeliveryState.HELD, HoldReason.LOOP, limit)).fetchall()
    return held_chains(conn) + [
        HeldNote(_note(row, row["note"], row["d_recipient"]), row["d_recipient"],
                 str(_column(row, "held_reason") or "") or None) for row in rows]


def _note(row: Row, note_id: int, recipient: str) -> Note:
    return Note(id=note_id, sender=row["sender"], recipient=recipient, body=row["body"],
                reply_to=row["reply_to"], created_at=row["created_at"], kind=row["kind"],
                task=row["task"])


def held_chains(conn: Connection) -> list[HeldNote]:
    """One entry per chain the loop guard holds: its newest held note, how many are held,
    and the hold's reason (`loop suspected — a↔b, 13 notes in 3 min, no progress`)."""
    rows = conn.execute(
        "SELECT c.id AS chain_id, c.reason AS chain_reason, n.*, d.recipient AS d_recipient,"
        " (SELECT count(*) FROM deliveries h JOIN notes m ON m.id = h.note"
        "  WHERE m.chain = c.id AND h.state = ? AND h.held_reason = ?) AS held_count"
        " FROM chains c JOIN notes n ON n.id = (SELECT max(m.id) FROM notes m"
        "  JOIN deliveries h ON h.note = m.id WHERE m.chain = c.id AND h.state = ?"
        "  AND h.held_reason = ?)"
        " JOIN deliveries d ON d.note = n.id WHERE c.state = ? ORDER BY c.id",
        (DeliveryState.HELD, HoldReason.LOOP, DeliveryState.HELD, HoldReason.LOOP,
         ChainState.HELD)).fetchall()
    found: dict[int, HeldNote] = {}
    for row in rows:  # a broadcast has a row per recipient: the chain is one entry
        found.setdefault(row["chain_id"], HeldNote(
            _note(row, row["id"], row["d_recipient"]), row["d_recipient"],
            row["chain_reason"], chain=row["chain_id"], count=int(row["held_count"])))
    return list(found.values())


def status_reasons(conn: Connection) -> dict[str, str]:
    """Why each session is in its status (the question of one that needs input), for
    the sessions that have a reason recorded."""
    rows = conn.execute("SELECT * FROM sessions").fetchall()
    return {row["name"]: str(reason) for row in rows
            if (reason := _column(row, "status_reason"))}


def inbox_of(conn: Connection, recipient: str,
             limit: int = 50) -> list[tuple[Note, Delivery]]:
    """The newest notes `recipient` received, oldest first, each with how far it got —
    the operator's look at a session's inbox (nothing is marked read)."""
    rows = conn.execute(
        "SELECT n.id AS n_id, n.sender, n.recipient AS n_recipient, n.body, n.reply_to,"
        " n.created_at, n.kind, n.task, d.* FROM deliveries d JOIN notes n ON n.id = d.note"
        " WHERE d.recipient = ? ORDER BY n.id DESC LIMIT ?", (recipient, limit)).fetchall()
    return [(Note(id=row["n_id"], sender=row["sender"], recipient=row["n_recipient"],
                  body=row["body"], reply_to=row["reply_to"], created_at=row["created_at"],
                  kind=row["kind"], task=row["task"]), delivery_of(row))
            for row in reversed(rows)]
