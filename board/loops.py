"""The operator's answer to a chain the loop guard held (board/chains.py): release it or
end it. Only the operator may; every answer and every refusal is in the audit trail.

- release: the chain's held notes are queued again and delivered once, like any note;
  the chain counts afresh from zero, so a loop that goes on is held again at the limit.
- end: the held notes are dropped (state `dropped`, never given), each of their senders
  is told once in a note from bullpen, and the chain takes no more notes (a send that
  would join it is refused).
"""

from __future__ import annotations

import time

from board import audit, chains, events, notes
from board.connection import Connection
from board.db import write
from board.errors import NotFound, Refused
from board.identity import Caller
from board.vocabulary import (
    SYSTEM_SENDER,
    ChainState,
    DeliveryState,
    EventKind,
    HoldReason,
    NoteKind,
)

_HELD_OF_CHAIN = ("WHERE state = ? AND held_reason = ?"
                  " AND note IN (SELECT id FROM notes WHERE chain = ?)")


def _operator_only(conn: Connection, caller: Caller, chain_id: int, action: str) -> None:
    """Refuse (and audit, in its own transaction) anyone but the operator."""
    if not caller.is_operator:
        reason = "only the operator releases or ends a held chain"
        audit.record(conn, caller.name, action, f"chain {chain_id}", "refused", reason)
        raise Refused(f"{action}: {reason}")


def _held_chain(conn: Connection, caller: Caller, chain_id: int,
                action: str) -> chains.Chain:
    _operator_only(conn, caller, chain_id, action)  # again: cheap, and never bypassed
    chain = chains.get(conn, chain_id)
    if chain is None:
        raise NotFound(f"chain {chain_id} does not exist; see bullpen note chains")
    if chain.state != ChainState.HELD:
        raise Refused(f"chain {chain_id} is {chain.state}, not held; see bullpen note chains")
    return chain


def release(conn: Connection, caller: Caller, chain_id: int) -> int:
    """Let a held chain's notes through (once) and count afresh; returns how many."""
    _operator_only(conn, caller, chain_id, "note release")
    with write(conn):
        chain = _held_chain(conn, caller, chain_id, "note release")
        now = time.time()
        released = conn.execute(
            "UPDATE deliveries SET state = ?, held_reason = NULL " + _HELD_OF_CHAIN,
            (DeliveryState.QUEUED, DeliveryState.HELD, HoldReason.LOOP, chain_id)).rowcount
        conn.execute("UPDATE chains SET state = ?, hops = 0, counted_since = ?,"
                     " since_event = (SELECT coalesce(max(id), 0) FROM events),"
                     " reason = NULL, held_at = NULL WHERE id = ?",
                     (ChainState.OPEN, now, chain_id))
        events.emit(conn, EventKind.CHAIN_RELEASED, None, chain_id, notes=released)
        audit.record(conn, caller.name, "note release", f"chain {chain_id}", "done",
                     f"{released} held note(s) let through; it was held: {chain.reason}")
    return released


def end(conn: Connection, caller: Caller, chain_id: int) -> int:
    """Drop a held chain's notes, tell each sender once, take no more notes into it."""
    _operator_only(conn, caller, chain_id, "note end")
    with write(conn):
        chain = _held_chain(conn, caller, chain_id, "note end")
        rows = conn.execute(
            "SELECT n.sender, d.recipient FROM deliveries d JOIN notes n ON n.id = d.note"
            " WHERE d.state = ? AND d.held_reason = ? AND n.chain = ? ORDER BY n.id",
            (DeliveryState.HELD, HoldReason.LOOP, chain_id)).fetchall()
        conn.execute("UPDATE deliveries SET state = ? " + _HELD_OF_CHAIN,
                     (DeliveryState.DROPPED, DeliveryState.HELD, HoldReason.LOOP, chain_id))
        conn.execute("UPDATE chains SET state = ? WHERE id = ?", (ChainState.ENDED, chain_id))
        events.emit(conn, EventKind.CHAIN_ENDED, None, chain_id, notes=len(rows))
        audit.record(conn, caller.name, "note end", f"chain {chain_id}", "done",
                     f"{len(rows)} held note(s) dropped; it was held: {chain.reason}")
        by_sender: dict[str, list[str]] = {}
        for row in rows:
            by_sender.setdefault(row[0], []).append(row[1])
        for sender, recipients in by_sender.items():
            if sender == SYSTEM_SENDER:
                continue
            to = ", ".join(dict.fromkeys(recipients))
            notes.send(conn, SYSTEM_SENDER, sender,
                       f"The operator ended conversation chain {chain_id} ({chain.reason})."
                       f" {len(recipients)} note(s) you sent in it (to {to}) were not"
                       " delivered, and it takes no more notes. Carry on with your task;"
                       " write to the operator if you need a decision.",
                       kind=NoteKind.SYSTEM)
    return len(rows)
