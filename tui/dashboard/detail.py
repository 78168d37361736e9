"""A session's detail as the detail screen shows it, gathered by one thread worker from
the store (board functions) and the runtime (git): plain Python, no Textual."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from board import attention, conflicts, sessions, views
from board.attention import Delivery
from board.conflicts import Conflict
from board.models import Note, NotebookEntry, Session
from board.vocabulary import SessionStatus
from tui.dashboard.actions import RUNTIME_ERRORS, SessionActions
from tui.dashboard.writer import StoreWriter

if TYPE_CHECKING:
    from workers.room.answers import Question
    from workers.room.code_view import CodeFlow


@dataclass(frozen=True)
class SessionDetail:
    """Everything the detail screen shows about one session."""

    session: Session
    reason: str | None  # why it is in its status (the question, when it needs input)
    changed: tuple[str, ...]
    diff: str
    problem: str | None  # why the worktree could not be read (then no diff, no files)
    inbox: tuple[tuple[Note, Delivery], ...]
    notebook: tuple[NotebookEntry, ...]
    conflicts: tuple[Conflict, ...] = ()  # the radar's open predictions about it
    code: CodeFlow | None = None  # ahead/behind the base, landed or ready to land
    question: Question | None = None  # read from its pane now, when it needs input


def load_detail(writer: StoreWriter, actions: SessionActions, name: str) -> SessionDetail:
    """Read one session's detail; a worktree that git cannot read is said, not raised."""
    session = writer.read(sessions.require, name)
    reason = writer.read(attention.status_reasons).get(name)
    inbox = writer.read(attention.inbox_of, name)
    notebook = writer.read(views.notebook_of, name)
    try:
        changed, diff, problem = tuple(actions.changed_paths(name)), actions.diff(name), None
    except RUNTIME_ERRORS as error:  # no worktree yet, or git refused: show why
        changed, diff, problem = (), "", str(error)
    radar = writer.read(conflicts.open_conflicts, name)
    try:
        code = actions.code_flows().get(name)
    except RUNTIME_ERRORS:  # git could not say: the overview leaves the line out
        code = None
    return SessionDetail(session, reason, changed, diff, problem, tuple(inbox),
                         tuple(notebook), tuple(radar), code, _question(actions, session))


def _question(actions: SessionActions, session: Session) -> Question | None:
    """What `session` asks now, as `bullpen questions` reads it from its pane (None when
    it asks nothing, or its pane cannot be read: the status line still says why)."""
    if session.status != SessionStatus.NEEDS_INPUT:
        return None
    try:
        return next((asked for asked in actions.questions() if asked.session == session.name),
                    None)
    except RUNTIME_ERRORS:
        return None
