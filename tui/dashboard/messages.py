"""Messages that cross the dashboard: from the tail thread and workers up to the screen."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from tui.dashboard.feed import RoomDelta


@dataclass
class RoomUpdated(Message):
    """The tail thread read new events (or the first snapshot)."""

    delta: RoomDelta


@dataclass
class TailFailed(Message):
    """The tail thread could not read the store."""

    error: str


@dataclass
class PreviewCaptured(Message):
    """A worker captured a session's pane."""

    session: str
    text: str

    def can_replace(self, message: Message) -> bool:
        """Only the newest capture matters."""
        return isinstance(message, PreviewCaptured)


@dataclass
class ChangedFilesCounted(Message):
    """A worker counted the files changed in sessions' worktrees."""

    counts: dict[str, int | None]
