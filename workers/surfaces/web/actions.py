"""The three things the web page can do, each audited as `operator@web`.

Answering goes through `RoomControl.answer` (the screen read again, a changed question
refused with nothing typed); a note is sent and a card moved as the operator, through
the board's own checks. Nothing else is reachable from the page: no spawn, no stop, no
land, no command of any kind.
"""

from __future__ import annotations

from board import audit, authority, notes, tasks, validate
from board.errors import BadInput, BullpenError
from board.identity import Caller
from board.models import OPERATOR
from board.room import open_operator_room
from workers.room.control import RoomControl

VIA = "web"
ACTOR = f"{OPERATOR}@{VIA}"
NOTE, MOVE = "note", "move"  # the audit's actions (answers audit their own: "answer")
MAX_NOTE = 4000  # characters a note from the page may hold


def answer(control: RoomControl, session: str, choice: str, question: str) -> str:
    """Type `choice` into `session`'s question `question`; one line saying what was done."""
    if not question:
        raise BadInput("an answer from the page names its question")
    done = control.answer(session, choice, question, via=VIA)
    taken = "" if done.taken else f" (the question is still on {session}'s screen)"
    return f"answered {session}: {done.choice.number} {done.choice.label}{taken}"


def _room(control: RoomControl):  # noqa: ANN202 - board.room.Room
    return open_operator_room(control.home)


def send_note(control: RoomControl, to: str, body: str) -> str:
    """Send `body` to `to` (a session or all) as the operator; audited."""
    body = body.strip()
    if not body or len(body) > MAX_NOTE:
        raise BadInput(f"a note holds 1 to {MAX_NOTE} characters")
    with _room(control) as room:
        try:
            note = notes.send(room.conn, Caller(OPERATOR), to, body)
        except BullpenError as error:
            audit.record(room.conn, ACTOR, NOTE, to, authority.REFUSED, str(error))
            raise
        audit.record(room.conn, ACTOR, NOTE, to, authority.DONE, f"note {note.id}")
    return f"note {note.id} to {to}"


def move_card(control: RoomControl, card: int, status: str) -> str:
    """Move card `card` to column `status` as the operator; audited."""
    target = f"task {card}"
    with _room(control) as room:
        try:
            validate.status(status)
            moved = tasks.move(room.conn, Caller(OPERATOR), card, status)
        except BullpenError as error:
            audit.record(room.conn, ACTOR, MOVE, target, authority.REFUSED, str(error))
            raise
        audit.record(room.conn, ACTOR, MOVE, target, authority.DONE, f"to {moved.status}")
    return f"task {card} is {moved.status}"
