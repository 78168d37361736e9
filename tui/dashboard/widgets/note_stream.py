"""The note stream: notes, handoffs, alerts, notebook entries and events, newest at the bottom.

Not a RichLog: appending there grows the virtual size, which re-lays out the whole
screen on every note (~100 ms with 50 sessions). This widget keeps a fixed size and
draws the tail of its items (or an older window, scrolled with the keys or the wheel),
so a new note repaints only this panel.
"""

from __future__ import annotations

from collections import deque

from rich.segment import Segment
from textual import events
from textual.binding import Binding
from textual.strip import Strip
from textual.widget import Widget

from tui.dashboard.feed import StreamItem
from tui.dashboard.format import stream_line

KEEP = 1000  # items kept in memory for scrolling back and re-filtering


class NoteStream(Widget, can_focus=True):
    """A tail of `StreamItem`s, one line each, that can be narrowed to one session."""

    BINDINGS = [
        Binding("up,k", "scroll_by(1)", "Older", show=False),
        Binding("down,j", "scroll_by(-1)", "Newer", show=False),
        Binding("pageup", "scroll_by(10)", show=False),
        Binding("pagedown", "scroll_by(-10)", show=False),
        Binding("home", "scroll_by(1000000)", show=False),
        Binding("end", "scroll_by(-1000000)", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: deque[StreamItem] = deque(maxlen=KEEP)
        self.shown: deque[StreamItem] = deque(maxlen=KEEP)
        self.only: str | None = None
        self.back = 0  # lines scrolled up from the newest
        self.border_title = "notes"

    def add(self, items: list[StreamItem]) -> None:
        """Append items (oldest first); those that pass the filter are drawn."""
        for item in items:
            self.items.append(item)
            if self.only is None or item.involves(self.only):
                self.shown.append(item)
                if self.back:
                    self.back += 1  # keep the window the reader scrolled to still
        self._update_subtitle()
        self.refresh()

    def narrow(self, session: str | None) -> None:
        """Show only items involving `session` (None: everything)."""
        self.only, self.back = session, 0
        self.shown = deque((item for item in self.items
                            if session is None or item.involves(session)), maxlen=KEEP)
        self.border_title = "notes" if session is None else f"notes · {session} only"
        self._update_subtitle()
        self.refresh()

    @property
    def lines(self) -> list[StreamItem]:
        """The items currently in the window, top to bottom."""
        height = self.content_region.height or len(self.shown)
        end = len(self.shown) - self.back
        return list(self.shown)[max(end - height, 0):end]

    def action_scroll_by(self, lines: int) -> None:
        most = max(len(self.shown) - max(self.content_region.height, 1), 0)
        self.back = max(0, min(self.back + lines, most))
        self._update_subtitle()
        self.refresh()

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self.action_scroll_by(3)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self.action_scroll_by(-3)

    def _update_subtitle(self) -> None:
        self.border_subtitle = f"↓ {self.back} newer (end)" if self.back else ""

    def render_line(self, y: int) -> Strip:
        width, height = self.content_region.width, self.content_region.height
        index = len(self.shown) - self.back - height + y
        if not 0 <= index < len(self.shown) or width <= 0:
            return Strip.blank(width, self.rich_style)
        text = stream_line(self.shown[index])
        text.truncate(width, overflow="ellipsis")
        segments = list(text.render(self.app.console))
        return Strip(segments).apply_style(self.rich_style).adjust_cell_length(
            width, self.rich_style) if segments else Strip([Segment(" " * width)])
