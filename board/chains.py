"""Conversation chains and the loop guard (DESIGN "Supervising"; issue 21).

Every note belongs to a chain. A reply continues its parent's chain; a note a session
sends during a turn that a note started (that note was typed into it, handed to it by a
hook or read from its inbox, and it has not gone idle since: the `turns` table)
continues that note's chain; any other note starts a chain of its own, named by its id.

A chain counts its agent-to-agent notes (a session's note to a session, or to all) since
its last progress: a note from the operator in it, a task status change by one of its
participants, or a commit by one of them (recorded by the watcher). When the count
passes the limit (`loop_guard: notes:`) the chain is held: that note and every later
agent-to-agent note of it wait, held `loop suspected` — never typed, handed or shown in
an inbox — and the needs-you strip names the chain (`loop suspected — a↔b↔c, 13 notes in
3 min, no progress`). The operator releases it or ends it (board/loops.py). Progress
after the hold does not release it: the human looks first.

A per-session rate limit backs the count (`loop_guard: rate:`): past it a send is refused.
It catches what a chain cannot see: a session sending note after note, each a chain of
its own. The operator and bullpen itself are never limited.
"""

from __future__ import annotations

import time

from board import audit, events, marks
from board.connection import Connection
from board.errors import Refused
from board.models import iso
from board.records import record
from board.vocabulary import (
    OPERATOR,
    SYSTEM_SENDER,
    ChainState,
    DeliveryState,
    EventKind,
    HoldReason,
)

LIMITS_MARK = "loop_guard"  # `meta` key: the room's limits, written by `up` from bullpen.yaml
# What counts as progress besides a note from the operator (by a chain's participant).
_TASK_CHANGES = (EventKind.TASK_MOVED, EventKind.TASK_CLAIMED, EventKind.TASK_DONE,
                 EventKind.TASK_BLOCKED)
_NOT_AGENTS = frozenset({OPERATOR, SYSTEM_SENDER})
_SLACK = 4  # notes besides the counted hops looked at for a chain's participants


@record(frozen=True)
class Limits:
    """The loop guard's two limits; None turns one off (docs/reference.md says why these)."""

    notes: int | None = 12  # agent-to-agent notes a chain may pass with no progress
    rate: int | None = 20  # notes one session may send per `per` seconds
    per: int = 60

    def to_mark(self) -> str:
        return f"{self.notes or 0} {self.rate or 0} {self.per}"

    @classmethod
    def from_mark(cls, text: str | None) -> Limits:
        try:
            notes, rate, per = (int(part) for part in (text or "").split())
        except ValueError:
            return cls()
        return cls(notes or None, rate or None, max(per, 1))


def limits(conn: Connection) -> Limits:
    return Limits.from_mark(marks.get_mark(conn, LIMITS_MARK))


def set_limits(conn: Connection, chosen: Limits) -> None:
    marks.set_mark(conn, LIMITS_MARK, chosen.to_mark())


def span(seconds: float) -> str:
    """A duration as the hold's text says it: `40 s`, `3 min`, `2 h`."""
    if seconds < 90:
        return f"{max(int(seconds), 1)} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{round(seconds / 3600)} h"


def per_text(seconds: int) -> str:
    return {1: "s", 60: "min", 3600: "h"}.get(seconds, f"{seconds} s")


def _window(seconds: int) -> str:
    return {1: "second", 60: "minute", 3600: "hour"}.get(seconds, f"{seconds} s")


# -- before a note is stored -----------------------------------------------------------

def admit(conn: Connection, sender: str, reply_to: int | None,
          now: float | None = None) -> None:
    """Refuse (and audit) a session's note past the room's rate limit, or one that would
    join a chain the operator ended. Runs before the send's own transaction, so the
    refusal's audit entry is kept."""
    if sender in _NOT_AGENTS:
        return
    now = time.time() if now is None else now
    chosen = limits(conn)
    if chosen.rate is not None:
        sent = conn.execute("SELECT count(*) FROM notes WHERE sender = ? AND created_at > ?",
                            (sender, now - chosen.per)).fetchone()[0]
        if sent >= chosen.rate:
            reason = (f"{sender} sent {sent} notes in the last {_window(chosen.per)}: the room's"
                      f" limit is {chosen.rate}/{per_text(chosen.per)} (loop_guard: rate)")
            audit.record(conn, sender, "note send", None, "refused", reason)
            raise Refused(f"note not sent: {reason}; wait a little, or ask the operator")
    chain = chain_for(conn, sender, reply_to)
    if chain is not None and state_of(conn, chain) == ChainState.ENDED:
        reason = f"the operator ended chain {chain} (loop suspected)"
        audit.record(conn, sender, "note send", f"chain {chain}", "refused", reason)
        raise Refused(f"note not sent: {reason}; it takes no more notes")


def chain_for(conn: Connection, sender: str, reply_to: int | None) -> int | None:
    """The chain a new note of `sender` continues (None: it starts one)."""
    if reply_to is not None:
        row = conn.execute("SELECT chain FROM notes WHERE id = ?", (reply_to,)).fetchone()
        return row[0] if row else None
    row = conn.execute("SELECT n.chain FROM turns t JOIN notes n ON n.id = t.note"
                       " WHERE t.session = ?", (sender,)).fetchone()
    return row[0] if row else None


def state_of(conn: Connection, chain: int) -> str | None:
    row = conn.execute("SELECT state FROM chains WHERE id = ?", (chain,)).fetchone()
    return row[0] if row else None


# -- a note joins its chain (inside the send's transaction) ----------------------------

@record(frozen=True)
class Entry:
    """Where a stored note stands in its chain; `held`: its deliveries wait (a loop)."""

    chain: int
    hops: int
    held: bool
    reason: str | None = None


def enter(conn: Connection, note_id: int, sender: str, recipients: list[str],
          chain: int | None, now: float, sender_head: str | None = None) -> Entry:
    """Put the stored note `note_id` in `chain` (a new one when None), count it, and hold
    it (and the chain) when it passes the limit. `sender_head`: the commit the sender's
    worktree is at, so a commit the watcher has not recorded yet still counts as
    progress (an agent commits, then at once answers)."""
    if chain is None or state_of(conn, chain) is None:
        chain = note_id
        conn.execute("INSERT INTO chains (id, state, hops, counted_since, since_event,"
                     " created_at) VALUES (?, ?, 0, ?, ?, ?)",
                     (chain, ChainState.OPEN, now, _last_event(conn), now))
    row = conn.execute("SELECT * FROM chains WHERE id = ?", (chain,)).fetchone()
    hops, since, since_event = row["hops"], row["counted_since"], row["since_event"]
    state, reason, held = row["state"], row["reason"], False
    if sender == OPERATOR:
        hops, since, since_event = 0, now, _last_event(conn)  # a human spoke: progress
    elif sender not in _NOT_AGENTS and any(name != OPERATOR for name in recipients):
        # The notes counted since its progress (and a few that are not hops): a loop's
        # cost stays the same however long the chain grew before.
        names = participants(conn, chain, sender, recipients, last=hops + _SLACK)
        progress = _progress(conn, names, since_event)
        if progress is not None:
            hops, (since_event, since) = 0, progress
        elif _committed_since_last_note(conn, chain, sender, sender_head):
            hops, since, since_event = 0, now, _last_event(conn)
        hops += 1
        chosen = limits(conn)
        if state == ChainState.HELD:
            held = True
        elif chosen.notes is not None and hops > chosen.notes:
            state, held = ChainState.HELD, True
            reason = (f"loop suspected — {'↔'.join(names)}, {hops} notes in"
                      f" {span(now - since)}, no progress")
            conn.execute("UPDATE chains SET held_at = ? WHERE id = ?", (now, chain))
            events.emit(conn, EventKind.CHAIN_HELD, sender, chain, reason=reason)
            audit.record(conn, SYSTEM_SENDER, "note hold", f"chain {chain}", "done", reason)
    conn.execute("UPDATE chains SET hops = ?, counted_since = ?, since_event = ?, state = ?,"
                 " reason = ? WHERE id = ?", (hops, since, since_event, state, reason, chain))
    conn.execute("UPDATE notes SET chain = ?, chain_hops = ?, sender_head = ? WHERE id = ?",
                 (chain, hops, sender_head, note_id))
    return Entry(chain, hops, held, reason if held else None)


def _committed_since_last_note(conn: Connection, chain: int, sender: str,
                               head: str | None) -> bool:
    """Whether the sender's worktree moved to another commit since its last note in
    the chain (both heads known)."""
    if head is None:
        return False
    row = conn.execute("SELECT sender_head FROM notes WHERE chain = ? AND sender = ?"
                       " AND sender_head IS NOT NULL ORDER BY id DESC LIMIT 1",
                       (chain, sender)).fetchone()
    return row is not None and row[0] != head


def _last_event(conn: Connection) -> int:
    return int(conn.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0])


def participants(conn: Connection, chain: int, sender: str = "",
                 recipients: list[str] | None = None, last: int = 2**31) -> list[str]:
    """The sessions that sent or received the chain's `last` newest notes (those since
    its progress, when `last` is its count), in order of appearance."""
    rows = conn.execute("SELECT n.sender, d.recipient FROM notes n LEFT JOIN deliveries d"
                        " ON d.note = n.id WHERE n.id IN (SELECT id FROM notes WHERE"
                        " chain = ? ORDER BY id DESC LIMIT ?) ORDER BY n.id, d.recipient",
                        (chain, last)).fetchall()
    seen = [name for row in rows for name in (row[0], row[1])]
    seen += [sender, *(recipients or [])]
    return [name for name in dict.fromkeys(seen) if name and name not in _NOT_AGENTS]


def _progress(conn: Connection, names: list[str],
              after_event: int) -> tuple[int, float] | None:
    """The newest task status change or commit by one of `names` after event
    `after_event`: (its event id, its time), or None."""
    if not names:
        return None
    marks_ = ", ".join("?" for _ in names)
    kinds = ", ".join("?" for _ in _TASK_CHANGES)
    row = conn.execute(
        "SELECT e.id, e.created_at FROM events e WHERE e.id > ?"
        f" AND e.session IN ({marks_}) AND (e.kind IN ({kinds}) OR (e.kind = ? AND EXISTS"
        " (SELECT 1 FROM changes c WHERE c.id = e.ref AND c.commit_sha IS NOT NULL)))"
        " ORDER BY e.id DESC LIMIT 1",
        (after_event, *names, *_TASK_CHANGES, EventKind.CHANGE_RECORDED)).fetchone()
    return (int(row[0]), float(row[1])) if row else None


# -- turns: which note started the turn a session is in --------------------------------

def given(conn: Connection, recipient: str, note_ids: list[int],
          now: float | None = None) -> None:
    """`recipient` was given these notes (claimed for typing, handed, read): its turn is
    the newest one's. Inside the caller's write transaction."""
    if not note_ids or recipient in _NOT_AGENTS:
        return
    conn.execute("INSERT INTO turns (session, note, given_at) VALUES (?, ?, ?)"
                 " ON CONFLICT(session) DO UPDATE SET note = excluded.note,"
                 " given_at = excluded.given_at",
                 (recipient, max(note_ids), time.time() if now is None else now))


def not_given(conn: Connection, recipient: str, note_ids: list[int]) -> None:
    """A claim was released untyped: the turn it started did not happen."""
    for note_id in note_ids:
        conn.execute("DELETE FROM turns WHERE session = ? AND note = ?", (recipient, note_id))


def turn_ended(conn: Connection, session: str) -> None:
    """`session` went idle: its next note starts a chain unless it is a reply."""
    conn.execute("DELETE FROM turns WHERE session = ?", (session,))


# -- reading chains --------------------------------------------------------------------

@record(frozen=True)
class Chain:
    """A chain as `note show --json`, `note chains` and needs-you show it."""

    id: int
    state: str
    hops: int  # agent-to-agent notes since its last progress
    reason: str | None
    held_at: float | None
    held_notes: int = 0
    participants: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"id": self.id, "state": self.state, "hops_since_progress": self.hops,
                "reason": self.reason, "held_at": iso(self.held_at),
                "held_notes": self.held_notes, "participants": list(self.participants)}


def get(conn: Connection, chain: int) -> Chain | None:
    row = conn.execute("SELECT * FROM chains WHERE id = ?", (chain,)).fetchone()
    if row is None:
        return None
    waiting = conn.execute(
        "SELECT count(*) FROM deliveries d JOIN notes n ON n.id = d.note WHERE n.chain = ?"
        " AND d.state = ? AND d.held_reason = ?",
        (chain, DeliveryState.HELD, HoldReason.LOOP)).fetchone()[0]
    return Chain(row["id"], row["state"], row["hops"], row["reason"], row["held_at"],
                 int(waiting), tuple(participants(conn, chain, last=row["hops"] + _SLACK)))


def place(conn: Connection, note_id: int) -> dict | None:
    """Note `note_id`'s place in its chain: the chain, its position, the hops since
    progress when it was sent (None: a note from before chains)."""
    row = conn.execute("SELECT chain, chain_hops FROM notes WHERE id = ?",
                       (note_id,)).fetchone()
    chain = get(conn, row[0]) if row and row[0] is not None else None
    if chain is None:
        return None
    position = conn.execute("SELECT count(*) FROM notes WHERE chain = ? AND id <= ?",
                            (chain.id, note_id)).fetchone()[0]
    return {**chain.to_json(), "position": int(position), "hops_at_note": row[1]}


def held(conn: Connection) -> list[Chain]:
    """The chains the loop guard holds, oldest first."""
    rows = conn.execute("SELECT id FROM chains WHERE state = ? ORDER BY id",
                        (ChainState.HELD,)).fetchall()
    return [chain for row in rows if (chain := get(conn, row[0])) is not None]
