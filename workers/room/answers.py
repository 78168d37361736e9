"""Answering an agent's question for the human, from any surface, never by itself.

`questions` lists what the sessions that need input ask now, each read from its pane's
screen with the choices the agent offers (`readers.menus`) and the question's id, the
fingerprint of its lines. `answer` types the human's choice only while that same
question is in front of the pane:

1. the caller is the operator (no session answers a question, its own or another's);
2. the store says the session is `needs_input`;
3. the screen, read again now, shows a menu question whose fingerprint is the one the
   human saw (`question_id`; without one, the question on screen now);
4. the selector is moved with arrow keys, the screen read once more, and Enter pressed
   only when the same question shows the chosen line selected.

Anything else refuses (exit 2) with nothing confirmed. Every answer and every refusal is
in the audit, with who (`operator`, `operator@web`), the question's id and words, and
the choice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from board import audit, authority, sessions
from board.errors import BullpenError, Refused
from board.identity import Caller
from board.models import Session
from board.records import record
from board.room import open_operator_room
from board.vocabulary import SessionStatus
from workers.agents.adapter import Screen, Sign
from workers.agents.kinds import adapter_for
from workers.agents.readers.menus import (
    ANSWER_KEY,
    Asked,
    Choice,
    arrow_keys,
    fingerprint,
    pick,
    read_menu,
)
from workers.tmux import keyboard, layout
from workers.tmux.server import RoomServer

T = TypeVar("T")
ANSWER = "answer"  # the audit's action
SETTLE = 3.0  # seconds the agent gets to redraw after keys (its selector, its next screen)
_POLL = 0.05


@record(frozen=True)
class Question:
    """What a session asks now: `question` is the line `ls` shows, `id` the fingerprint
    of the dialog's lines, `context` those lines, and the choices (none: a question
    bullpen cannot answer, to be answered in the pane)."""

    session: str
    id: str
    question: str
    context: tuple[str, ...]
    choices: tuple[Choice, ...]
    selected: int = 0

    def to_json(self) -> dict:
        return {"session": self.session, "id": self.id, "question": self.question,
                "context": list(self.context),
                "choices": [choice.to_json() for choice in self.choices],
                "selected": self.choices[self.selected].number if self.choices else None}


@record(frozen=True)
class Answered:
    """An answer typed: to which question, which choice, and whether the question left
    the screen within `SETTLE` seconds (the agent took it)."""

    question: Question
    choice: Choice
    taken: bool


def _screen(server: RoomServer, pane: str) -> Screen:
    text, x, y = keyboard.screen_now(server, pane)
    return Screen.from_text(text, (x, y))


def _asked(session: Session, screen: Screen) -> tuple[str, Asked | None] | None:
    """(the question line, its menu or None) when `session`'s agent asks on `screen`."""
    adapter = adapter_for(session.agent, session.deliver)
    reading = adapter.read(screen)
    if reading.sign != Sign.QUESTION:
        return None
    menu = read_menu(screen) if adapter.answers_menus else None
    return reading.detail or (menu.question if menu else "?"), menu


def _question(session: Session, screen: Screen) -> Question | None:
    found = _asked(session, screen)
    if found is None:
        return None
    line, menu = found
    if menu is None:
        return Question(session.name, fingerprint((line,), ()), line, (line,), ())
    return Question(session.name, menu.fingerprint, line, menu.context, menu.choices,
                    menu.selected)


def _pane(server: RoomServer, session: Session) -> str | None:
    owned = session.pane and layout.owns_pane(server, session.pane, session.name)
    return session.pane if owned else None


def questions(home: Path, server: RoomServer) -> list[Question]:
    """What each session that needs input asks now, read from its pane (sessions whose
    pane is not on this machine, or whose screen asks nothing any more, are left out)."""
    with open_operator_room(home) as room:
        waiting = [item for item in sessions.all_sessions(room.conn)
                   if item.status == SessionStatus.NEEDS_INPUT]
    found = []
    for session in waiting:
        pane = _pane(server, session)
        asked = _question(session, _screen(server, pane)) if pane else None
        if asked is not None:
            found.append(asked)
    return found


class _Answer:
    """One answer in progress: refusals are audited with what was asked and chosen."""

    def __init__(self, home: Path, caller: Caller, name: str, wanted: str,
                 question_id: str | None, via: str | None) -> None:
        self.home, self.caller, self.name, self.wanted = home, caller, name, wanted
        self.question_id = question_id
        self.actor = f"{caller.name}@{via}" if via else caller.name

    def audit(self, outcome: str, detail: str) -> None:
        with open_operator_room(self.home) as room:
            audit.record(room.conn, self.actor, ANSWER, self.name, outcome, detail)

    def refuse(self, reason: str, asked: Question | None = None) -> Refused:
        meant = self.question_id or (asked.id if asked else None)  # the one answered
        where = f"question {meant}, " if meant else ""
        self.audit(authority.REFUSED, f"{where}choice {self.wanted!r}: {reason}")
        return Refused(reason)


def answer(home: Path, server: RoomServer, caller: Caller, name: str, wanted: str,
           question_id: str | None = None, via: str | None = None) -> Answered:
    """Type the choice `wanted` (its number or label) into `name`'s question, only while
    it is the question `question_id` (default: the one on screen now) and `name` still
    needs input. `via` names the surface in the audit (`web`: `operator@web`)."""
    doing = _Answer(home, caller, name, wanted, question_id, via)
    with open_operator_room(home) as room:
        authority.check_operator(room.conn, caller, ANSWER, name,
                                 "only the human answers an agent's question")
        session = sessions.require(room.conn, name)
    if session.status != SessionStatus.NEEDS_INPUT:
        raise doing.refuse(f"{name} asks nothing now (it is {session.status}); nothing typed")
    pane = _pane(server, session)
    if pane is None:
        raise doing.refuse(f"{name} has no pane on this machine; nothing typed")
    asked = _question(session, _screen(server, pane))
    if asked is None:
        raise doing.refuse(f"the question changed: {name} asks nothing now; nothing typed")
    if question_id is not None and question_id != asked.id:
        raise doing.refuse(f"the question changed: {name} now asks {asked.question!r}"
                           f" (question {asked.id}); see bullpen questions. Nothing typed",
                           asked)
    if not asked.choices:
        raise doing.refuse(f"bullpen cannot type an answer to {asked.question!r}; answer"
                           f" it in the pane (bullpen attach {name})", asked)
    choice = pick(asked.choices, wanted)
    if choice is None:
        offered = " · ".join(f"{item.number} {item.label}" for item in asked.choices)
        raise doing.refuse(f"{wanted!r} is not one of the choices: {offered}", asked)
    _select(server, pane, session, asked, choice, doing)
    keyboard.press_keys(server, pane, (ANSWER_KEY,))
    doing.audit(authority.DONE, f"question {asked.id} ({asked.question}):"
                                f" {choice.number} {choice.label}")
    taken = _wait(lambda: _id_on_screen(server, pane, session) != asked.id)
    return Answered(asked, choice, bool(taken))


def _select(server: RoomServer, pane: str, session: Session, asked: Question,
            choice: Choice, doing: _Answer) -> None:
    """Move the selector onto `choice` and see it there, on the same question."""
    keyboard.press_keys(server, pane, arrow_keys(asked.choices, asked.selected, choice))
    index = asked.choices.index(choice)

    def on_choice() -> Question | None:
        now = _question(session, _screen(server, pane))
        return now if now is not None and now.id == asked.id and now.selected == index \
            else None

    if _wait(on_choice) is None:
        raise doing.refuse(f"the question changed while the choice was selected (or the"
                           f" menu did not move to {choice.label!r}); nothing confirmed",
                           asked)


def _id_on_screen(server: RoomServer, pane: str, session: Session) -> str | None:
    try:
        now = _question(session, _screen(server, pane))
    except BullpenError:  # the pane closed: the question is gone with it
        return None
    return now.id if now is not None else None


def _wait(condition: Callable[[], T], timeout: float = SETTLE) -> T | None:
    """`condition()`'s first true value within `timeout` seconds, else None."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() > deadline:
            return value or None
        time.sleep(_POLL)
