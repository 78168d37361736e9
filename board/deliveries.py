"""Each note's delivery to each recipient: a small state machine, one conditional UPDATE
per step, so two deliverers (the coordinator and a hook) never both win a note.

    queued ──hold──▶ held(reason) ──▶ queued …        (waiting; the reason says why)
    queued|held ──claim──▶ claimed ──confirm──▶ typed  (into the pane, two-phase)
    claimed ──release──▶ queued [possible_repeat]      (not typed, or undecidable)
    queued|held ──hand──▶ handed                       (a hook gave it to the model)
    queued|held ──inbox──▶ read                        (the agent read its inbox)
    held(loop suspected) ──release──▶ queued | ──end──▶ dropped   (the operator decides)

Typed and handed notes count as read: the inbox does not show them again. A note held
as `capped` (the session's queue was over its cap) is never typed; it waits in the inbox,
and the agent is told so once, on whichever path reaches it next (`untold_overflow`,
`told_overflow`: the newest capped note it was told about is kept in `meta`). A note
held as `loop suspected` (its chain is held, board/chains.py) is given no way at all —
not typed, handed, nor read from the inbox — until the operator releases or ends it.

A note held as `budget` (its recipient reached its budget, board/budgets.py) is not
typed or handed either (the inbox still shows it) until `release_budget` queues it
again; the one note that told the recipient so (`over_budget`) still reaches it.
"""

from __future__ import annotations

import time

from board import chains, events, marks
from board.connection import Connection, Row
from board.db import write
from board.models import Note, iso
from board.records import record
from board.vocabulary import DeliveryChannel, DeliveryState, EventKind, HoldReason

QUEUE_CAP = 50  # waiting notes kept for typing per session; older ones wait in the inbox
WAITING = (DeliveryState.QUEUED, DeliveryState.HELD)
GIVEN = (DeliveryState.TYPED, DeliveryState.HANDED)
# Held for these, a note is not offered for typing or to a hook until it is released.
STICKY = (HoldReason.CAPPED, HoldReason.LOOP, HoldReason.BUDGET)
# States are bound as parameters from the enums, never spelled inside SQL.
_WAITING_SQL = ("d.state IN (?, ?) AND (d.held_reason IS NULL OR"
                " d.held_reason NOT IN (?, ?, ?))")
_WAITING_PARAMS = (*WAITING, *STICKY)
# A note of a held chain (a loop) is given no way at all, not even the inbox, until the
# operator releases it; one the operator dropped never is (board/chains.py, loops.py).
HIDDEN_SQL = ("(d.held_reason IS NULL OR d.held_reason <> ? OR d.state <> ?)"
              " AND d.state <> ?")
HIDDEN_PARAMS = (HoldReason.LOOP, DeliveryState.HELD, DeliveryState.DROPPED)


@record(frozen=True)
class Delivery:
    """One recipient's delivery of one note, as `note show --json` prints it."""

    recipient: str
    state: str
    held_reason: str | None
    via: str | None
    delivered_at: float | None
    read_at: float | None
    possible_repeat: bool
    claim_pane: str | None = None

    def to_json(self) -> dict:
        return {"recipient": self.recipient, "state": self.state,
                "held_reason": self.held_reason, "via": self.via,
                "delivered_at": iso(self.delivered_at), "read_at": iso(self.read_at),
                "possible_repeat": self.possible_repeat}


def _note(row: Row) -> Note:
    return Note(id=row["id"], sender=row["sender"], recipient=row["recipient"],
                body=row["body"], reply_to=row["reply_to"], created_at=row["created_at"],
                kind=row["kind"], task=row["task"])


def waiting(conn: Connection, recipient: str, limit: int | None = None) -> list[Note]:
    """Notes waiting for `recipient` (queued or held, not capped or over budget), oldest
    first."""
    rows = conn.execute(
        "SELECT n.* FROM deliveries d JOIN notes n ON n.id = d.note"
        f" WHERE d.recipient = ? AND {_WAITING_SQL} ORDER BY n.id LIMIT ?",
        (recipient, *_WAITING_PARAMS, 2**62 if limit is None else limit)).fetchall()
    return [_note(row) for row in rows]


def handed_by_hook(conn: Connection, recipient: str, since: float,
                   limit: int = 20) -> list[Note]:
    """The newest `limit` notes a hook handed to `recipient` at `since` or later, oldest
    first (what a resumed conversation should hold)."""
    rows = conn.execute(
        "SELECT n.* FROM deliveries d JOIN notes n ON n.id = d.note"
        " WHERE d.recipient = ? AND d.state = ? AND d.via = ? AND d.delivered_at >= ?"
        " ORDER BY n.id DESC LIMIT ?",
        (recipient, DeliveryState.HANDED, DeliveryChannel.HOOK, since, limit)).fetchall()
    return [_note(row) for row in reversed(rows)]


def recipients_waiting(conn: Connection) -> set[str]:
    """Every recipient with a note `waiting` would return (one query for a whole tick)."""
    rows = conn.execute(f"SELECT DISTINCT d.recipient FROM deliveries d WHERE {_WAITING_SQL}",
                        _WAITING_PARAMS).fetchall()
    return {row[0] for row in rows}


def repeats(conn: Connection, recipient: str, note_ids: list[int]) -> set[int]:
    """Which of `note_ids` are flagged as a possible repeat for `recipient`."""
    if not note_ids:
        return set()
    marks = ", ".join("?" for _ in note_ids)
    rows = conn.execute(f"SELECT note FROM deliveries WHERE recipient = ? AND note IN ({marks})"
                        " AND possible_repeat = 1", (recipient, *note_ids)).fetchall()
    return {row[0] for row in rows}


def _step(conn: Connection, recipient: str, note_ids: list[int], assignment: str,
          condition: str, values: tuple) -> list[int]:
    changed = []
    for note_id in note_ids:
        # `values` fill the assignment's then the condition's placeholders, in order.
        if conn.execute(f"UPDATE deliveries SET {assignment} WHERE ({condition})"
                        " AND note = ? AND recipient = ?", (*values, note_id, recipient)).rowcount:
            changed.append(note_id)
    return changed


def hold(conn: Connection, recipient: str, reason: str,
         note_ids: list[int] | None = None) -> int:
    """Mark `recipient`'s waiting notes (all, or `note_ids`) held for `reason`; a note
    already held for that reason is not written again. Returns how many changed."""
    ids = note_ids if note_ids is not None else [n.id for n in waiting(conn, recipient)]
    if not ids:
        return 0
    with write(conn):
        held = _step(conn, recipient, ids, "state = ?, held_reason = ?",
                     "state IN (?, ?) AND (held_reason IS NULL OR"
                     " held_reason NOT IN (?, ?, ?, ?))",
                     (DeliveryState.HELD, reason, *WAITING, reason, *STICKY))
        if held:
            events.emit(conn, EventKind.NOTES_HELD, recipient, held[-1], count=len(held),
                        reason=reason)
    return len(held)


def claim(conn: Connection, recipient: str, note_ids: list[int],
          pane: str) -> list[int]:
    """Phase one of typing: waiting → claimed (with the pane it is for). Returns the ids
    this call won; a note a hook or the inbox took first is not among them, nor one with
    an earlier note to `recipient` still claimed (notes are typed in order: that one is
    settled first, see `claimed`)."""
    if not note_ids:
        return []
    batch = ", ".join("?" for _ in note_ids)  # a batch's own claims do not count
    with write(conn):
        won = _step(conn, recipient, note_ids,
                    "state = ?, claimed_at = ?, claim_pane = ?",
                    "state IN (?, ?) AND (held_reason IS NULL OR"
                    " held_reason NOT IN (?, ?, ?)) AND NOT EXISTS (SELECT 1 FROM"
                    " deliveries e WHERE e.recipient = deliveries.recipient AND e.state = ?"
                    f" AND e.note < deliveries.note AND e.note NOT IN ({batch}))",
                    (DeliveryState.CLAIMED, time.time(), pane, *_WAITING_PARAMS,
                     DeliveryState.CLAIMED, *note_ids))
        chains.given(conn, recipient, won)  # its next turn is this note's (before Enter)
        return won


def confirm(conn: Connection, recipient: str, note_ids: list[int]) -> list[int]:
    """Phase two: claimed → typed (it reached the agent's input), which counts as read."""
    if not note_ids:
        return []
    now = time.time()
    with write(conn):
        done = _step(conn, recipient, note_ids,
                     "state = ?, via = ?, delivered_at = ?,"
                     " read_at = coalesce(read_at, ?), held_reason = NULL",
                     "state = ?",
                     (DeliveryState.TYPED, DeliveryChannel.PANE, now, now, DeliveryState.CLAIMED))
        if done:
            events.emit(conn, EventKind.NOTES_DELIVERED, recipient, done[-1],
                        via=DeliveryChannel.PANE, notes=done)
    return done


def release(conn: Connection, recipient: str, note_ids: list[int],
            possible_repeat: bool = False) -> list[int]:
    """claimed → queued: nothing reached the agent, or whether it did cannot be known
    (then it is re-offered marked as a possible repeat, never dropped)."""
    if not note_ids:
        return []
    flag = ", possible_repeat = 1" if possible_repeat else ""  # a flag set stays set
    with write(conn):
        back = _step(conn, recipient, note_ids,
                     "state = ?, claimed_at = NULL, claim_pane = NULL" + flag,
                     "state = ?", (DeliveryState.QUEUED, DeliveryState.CLAIMED))
        if not possible_repeat:
            chains.not_given(conn, recipient, back)
        return back


def hand(conn: Connection, recipient: str, via: str = DeliveryChannel.HOOK) -> list[Note]:
    """A hook takes every waiting note into the agent's turn: waiting → handed."""
    now = time.time()
    with write(conn):
        found = budget_hold(conn, recipient, waiting(conn, recipient))
        done = set(_step(conn, recipient, [n.id for n in found],
                         "state = ?, via = ?, delivered_at = ?,"
                         " read_at = coalesce(read_at, ?), held_reason = NULL",
                         "state IN (?, ?)", (DeliveryState.HANDED, via, now, now, *WAITING)))
        if done:
            chains.given(conn, recipient, sorted(done), now)
            events.emit(conn, EventKind.NOTES_DELIVERED, recipient, max(done), via=via,
                        notes=sorted(done))
    return [note for note in found if note.id in done]


def _overflow_key(recipient: str) -> str:
    return f"overflow_told:{recipient}"


def untold_overflow(conn: Connection, recipient: str) -> tuple[int, int]:
    """(how many, newest id) of `recipient`'s capped notes, still unread, that it was not
    told about yet. Capped notes are the oldest waiting ones, so later ones have higher ids."""
    told = int(marks.get_mark(conn, _overflow_key(recipient)) or 0)
    row = conn.execute(
        "SELECT count(*), max(note) FROM deliveries WHERE recipient = ? AND state = ?"
        " AND held_reason = ? AND read_at IS NULL AND note > ?",
        (recipient, DeliveryState.HELD, HoldReason.CAPPED, told)).fetchone()
    return int(row[0]), int(row[1] or 0)


def told_overflow(conn: Connection, recipient: str, newest: int) -> None:
    """`recipient` was told about its capped notes up to note `newest`."""
    if newest:
        marks.set_mark(conn, _overflow_key(recipient), str(newest))


def _budget_key(recipient: str) -> str:
    return f"budget_over:{recipient}"


def over_budget(conn: Connection, recipient: str) -> int | None:
    """The id of the note that told `recipient` it reached its budget, while it is at it;
    None when it is not."""
    value = marks.get_mark(conn, _budget_key(recipient))
    return int(value) if value else None


def all_over_budget(conn: Connection) -> dict[str, int]:
    """Every recipient at its budget -> the note that told it."""
    prefix = _budget_key("")
    rows = conn.execute("SELECT key, value FROM meta WHERE key LIKE ?",
                        (prefix + "%",)).fetchall()
    return {row[0][len(prefix):]: int(row[1]) for row in rows if row[1]}


def set_over_budget(conn: Connection, recipient: str, notice: int | None) -> None:
    """`recipient` is at its budget, told by note `notice` (None: no longer)."""
    marks.set_mark(conn, _budget_key(recipient), str(notice) if notice else "")


def budget_hold(conn: Connection, recipient: str, found: list[Note]) -> list[Note]:
    """Of `found` (waiting for `recipient`), what may still reach it: all of them, or, at
    its budget, only the note that told it so; the rest are held as `budget`."""
    notice = over_budget(conn, recipient)
    if notice is None:
        return found
    hold(conn, recipient, HoldReason.BUDGET, [note.id for note in found if note.id != notice])
    return [note for note in found if note.id == notice]


def release_budget(conn: Connection, recipient: str) -> int:
    """Notes held as `budget` for `recipient` wait again (typed next, each once)."""
    with write(conn):
        return conn.execute(
            "UPDATE deliveries SET state = ?, held_reason = NULL WHERE recipient = ?"
            " AND state = ? AND held_reason = ?",
            (DeliveryState.QUEUED, recipient, DeliveryState.HELD, HoldReason.BUDGET)).rowcount


def claimed(conn: Connection, recipient: str | None = None) -> list[tuple[Note, Delivery]]:
    """Every claimed delivery (after a crash, or a typing that failed: typed or not?), of
    `recipient` or of all, oldest first."""
    mine = "" if recipient is None else " AND d.recipient = ?"
    rows = conn.execute(
        "SELECT n.*, d.recipient AS d_recipient, d.state AS d_state, d.held_reason,"
        " d.via, d.delivered_at, d.read_at, d.possible_repeat, d.claim_pane"
        f" FROM deliveries d JOIN notes n ON n.id = d.note WHERE d.state = ?{mine}"
        " ORDER BY n.id",
        (DeliveryState.CLAIMED, *(() if recipient is None else (recipient,)))).fetchall()
    return [(_note(row), _delivery(row)) for row in rows]


def claimed_before(conn: Connection, when: float) -> list[tuple[int, str, float]]:
    """(note, recipient, claimed at) of each claim made before `when`, oldest first:
    typing takes seconds, so an old claim is one nothing settled."""
    rows = conn.execute("SELECT note, recipient, claimed_at FROM deliveries WHERE state = ?"
                        " AND claimed_at < ? ORDER BY claimed_at",
                        (DeliveryState.CLAIMED, when)).fetchall()
    return [(int(row[0]), str(row[1]), float(row[2])) for row in rows]


def _delivery(row: Row) -> Delivery:
    return Delivery(row["d_recipient"], row["d_state"], row["held_reason"], row["via"],
                    row["delivered_at"], row["read_at"], bool(row["possible_repeat"]),
                    row["claim_pane"])


def of_note(conn: Connection, note_id: int) -> list[Delivery]:
    """Each recipient's delivery of a note."""
    rows = conn.execute(
        "SELECT d.recipient AS d_recipient, d.state AS d_state, d.held_reason, d.via,"
        " d.delivered_at, d.read_at, d.possible_repeat, d.claim_pane"
        " FROM deliveries d WHERE d.note = ? ORDER BY d.recipient", (note_id,)).fetchall()
    return [_delivery(row) for row in rows]


def state_of(conn: Connection, note_id: int, recipient: str) -> str | None:
    """The delivery state of a note for one recipient (None: not addressed to it)."""
    row = conn.execute("SELECT state FROM deliveries WHERE note = ? AND recipient = ?",
                       (note_id, recipient)).fetchone()
    return row[0] if row else None
