"""The note stream: notes, handoffs, alerts, notebook entries and events, newest at the bottom."""

from __future__ import annotations

from collections import deque

from textual.widgets import RichLog

from tui.dashboard.feed import StreamItem
from tui.dashboard.format import stream_line

KEEP = 1000  # lines kept in memory for re-filtering; the store keeps everything


class NoteStream(RichLog):
    """A log of `StreamItem`s that can be narrowed to one session."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, wrap=True, markup=False, auto_scroll=True, max_lines=KEEP)
        self.items: deque[StreamItem] = deque(maxlen=KEEP)
        self.only: str | None = None
        self.border_title = "notes"

    def add(self, items: list[StreamItem]) -> None:
        """Append items (oldest first), writing those that pass the filter."""
        for item in items:
            self.items.append(item)
            if self.only is None or item.involves(self.only):
                self.write(stream_line(item))

    def narrow(self, session: str | None) -> None:
        """Show only items involving `session` (None: everything) and redraw."""
        self.only = session
        self.border_title = "notes" if session is None else f"notes · {session} only"
        self.clear()
        for item in self.items:
            if session is None or item.involves(session):
                self.write(stream_line(item))
