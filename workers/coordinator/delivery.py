"""Typing pending notes into idle panes: durable first, typed once, never into a prompt.

A note is marked delivered before it is typed (a crash in between leaves it unread in
the inbox, never typed twice). Notes are typed only when the session is idle; several
waiting notes go in as one line, so an agent takes them in one turn.
"""

from __future__ import annotations

import logging
import sqlite3

from board import notes
from board.models import Note
from board.vocabulary import DeliveryChannel
from workers.tmux import sanitize
from workers.tmux.keyboard import is_shell, type_line
from workers.tmux.server import RoomServer, TmuxError

log = logging.getLogger(__name__)

QUEUE_CAP = 50  # pending notes kept for typing per session; older ones wait in the inbox
PER_LINE = 5  # notes typed together in one line
NOTE_CHARS = 600  # each note's share of the typed line; the inbox has the full text


def pane_form(note: Note) -> str:
    """How a note reads in the agent's input: its id, its sender, then its text."""
    reply = f" re #{note.reply_to}" if note.reply_to else ""
    label = "note" if note.kind == "note" else note.kind
    body = sanitize.clean(note.body, limit=NOTE_CHARS)
    return f"[{label} #{note.id} from {note.sender}{reply}] {body}"


def typed_line(batch: list[Note], held: int = 0) -> str:
    parts = [pane_form(note) for note in batch]
    if held:
        parts.append(f"[bullpen] {held} older notes were not typed (queue over {QUEUE_CAP});"
                     " read them with: bullpen note inbox")
    return sanitize.clean(" ".join(parts))


class Deliverer:
    """Delivers each idle session's pending notes into its pane."""

    def __init__(self, conn: sqlite3.Connection, server: RoomServer) -> None:
        self.conn = conn
        self.server = server

    def deliver(self, session: str, pane_id: str, current_command: str) -> list[int]:
        """Type the session's next pending notes; returns the ids typed."""
        waiting = notes.pending(self.conn, session)
        if not waiting:
            return []
        held = 0
        if len(waiting) > QUEUE_CAP:
            overflow = waiting[: len(waiting) - QUEUE_CAP]
            held = notes.hold(self.conn, session, [note.id for note in overflow])
            waiting = waiting[len(overflow):]
        batch = waiting[:PER_LINE]
        ids = notes.claim_delivery(self.conn, session, [note.id for note in batch],
                                   via=DeliveryChannel.PANE)
        if not ids:
            return []  # a hook or the inbox took them first
        still_ours = [note for note in batch if note.id in ids]
        line = typed_line(still_ours, held)
        if is_shell(current_command):
            line = sanitize.as_shell_comment(line)  # a shell must never run note text
        try:
            type_line(self.server, pane_id, line)
        except (TmuxError, ValueError) as error:
            log.warning("could not type into %s (%s): requeued", pane_id, error)
            notes.requeue(self.conn, session, ids)
            return []
        return ids
