"""Messages that cross the dashboard: from the tail thread and thread workers up to the
screen (workers never touch widgets; they post one of these)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

from board.models import Task
from tui.dashboard.detail import SessionDetail
from tui.dashboard.landing import LandOutcome

if TYPE_CHECKING:
    from workers.room.code_view import CodeFlow
    from workers.room.land import LandingPreview


@dataclass
class RoomUpdated(Message):
    """The tail thread put new deltas (or the first snapshot) in the screen's `DeltaBox`;
    the screen takes them all, merged, when it handles this."""


@dataclass
class TailFailed(Message):
    """The tail thread could not read the store."""

    error: str


@dataclass
class CoordinatorChecked(Message):
    """The keeper looked at the coordinator: its trouble in one line, or None."""

    state: str | None


@dataclass
class PreviewCaptured(Message):
    """A worker captured a session's pane (or says why it could not)."""

    session: str
    text: str

    def can_replace(self, message: Message) -> bool:
        """Only the newest capture matters."""
        return isinstance(message, PreviewCaptured)


@dataclass
class ChangedFilesCounted(Message):
    """A worker counted the files changed in sessions' worktrees."""

    counts: dict[str, int | None]


@dataclass
class StoreWritten(Message):
    """A board function the operator asked for succeeded; `follow` names the card whose
    column the focus should follow (the card moved)."""

    result: object
    follow: int | None = None


@dataclass
class TaskLoaded(Message):
    """A worker read one task with its links and comments."""

    task: Task


@dataclass
class RuntimeDone(Message):
    """A session verb finished; `text` is what to tell the human (None: nothing)."""

    text: str | None


@dataclass
class SessionDetailLoaded(Message):
    """A worker gathered one session's detail (store and git)."""

    detail: SessionDetail


@dataclass
class CodeFlowsLoaded(Message):
    """A worker read where each session's code stands (landed, ready, conflicts)."""

    flows: dict[str, CodeFlow]

    def can_replace(self, message: Message) -> bool:
        """Only the newest reading matters."""
        return isinstance(message, CodeFlowsLoaded)


@dataclass
class LandingPrepared(Message):
    """A worker read what landing a session would do: the question can be asked."""

    preview: LandingPreview


@dataclass
class LandFinished(Message):
    """A landing ended: landed, or refused with its reason."""

    outcome: LandOutcome
