"""Notes a hook handed that a resumed conversation lost, handed again at its next turn.

A hook (Hermes' pre_llm_call, Claude's UserPromptSubmit) adds bullpen's notes to the
turn it runs for; they count as delivered. After `restart` or `up`, the agent resumes
its conversation from its own store, and Hermes 0.17 and 0.18 keep only the typed lines
there, not what a hook added: the handoff and the notes are gone from the model's view.
So at each launch that resumes, the notes handed by a hook since the conversation began
that the agent's store does not hold (their header is not in its text) are sent again,
in one system note from bullpen marked `(again after a restart)`, which the next turn's
hook hands in. Where the store keeps them (Hermes 0.19), or cannot be read, or the kind
does not say (`Adapter.kept_conversation`), nothing is repeated.
"""

from __future__ import annotations

import re

from board import deliveries, notes
from board.connection import Connection
from board.models import Note, Session
from board.vocabulary import SYSTEM_SENDER, NoteKind
from workers.agents import framing
from workers.agents.kinds import adapter_for

AGAIN = "again after a restart"
_ROOM = 7_000  # characters of the system note the lost notes may fill (the cap is 8,000)


def hand_again(conn: Connection, session: Session, conversation: str | None) -> Note | None:
    """Send `session` the notes its resumed `conversation` lost (None when none were)."""
    if not conversation or not session.agent:
        return None
    kept = adapter_for(session.agent, session.deliver).kept_conversation(session, conversation)
    if kept is None:
        return None
    began, text = kept
    lost = [note for note in deliveries.handed_by_hook(conn, session.name, began)
            if not _held(note, text) and not _is_again(note)]
    if not lost:
        return None
    return notes.send(conn, SYSTEM_SENDER, session.name, _body(lost), kind=NoteKind.SYSTEM)


def _is_again(note: Note) -> bool:
    """One of these notes itself: its notes are looked for again, not it."""
    return note.sender == SYSTEM_SENDER and note.body.startswith(f"({AGAIN})")


def _held(note: Note, text: str) -> bool:
    """Whether the conversation's text holds note's hook header (framing.hook_form)."""
    return re.search(rf"\[bullpen \w+ {note.id} from |\[bullpen \w+, note {note.id}\b",
                     text) is not None


def _body(lost: list[Note]) -> str:
    parts: list[str] = []
    room = _ROOM
    for note in reversed(lost):  # the newest first into the room there is
        part = framing.hook_form(note)
        if len(part) > room:
            break
        parts.insert(0, part)
        room -= len(part) + 1
    left = len(lost) - len(parts)
    more = f"\n({left} older ones: bullpen note inbox --all)" if left else ""
    return (f"({AGAIN}) Your resumed conversation does not hold these notes, handed to"
            " you before the restart:\n" + "\n".join(parts) + more)
