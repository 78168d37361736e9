"""The note stream: notes, handoffs, pings, alerts, notebook entries and board events,
newest at the bottom, each on as many lines as it needs.

Not a RichLog: appending there grows the virtual size, which re-lays out the whole
screen on every note (~100 ms with 50 sessions). This widget keeps a fixed size and
draws the tail of its items (or an older window, scrolled with the keys or the wheel),
so a new note repaints only this panel. Status flips (`coder is working`) are hidden
unless toggled on: the sessions panel shows them already.
"""

from __future__ import annotations

from collections import deque

from rich.segment import Segment
from textual import events
from textual.binding import Binding
from textual.strip import Strip
from textual.widget import Widget

from board.attention import Delivery
from tui.dashboard.feed import StreamItem
from tui.dashboard.format import stream_lines

KEEP = 1000  # items kept in memory for scrolling back and re-filtering


class NoteStream(Widget, can_focus=True):
    """A tail of `StreamItem`s that can be narrowed to one session."""

    BINDINGS = [
        Binding("up,k", "scroll_by(1)", "Older", show=False),
        Binding("down,j", "scroll_by(-1)", "Newer", show=False),
        Binding("pageup", "scroll_by(5)", "5 notes older", show=False),
        Binding("pagedown", "scroll_by(-5)", "5 notes newer", show=False),
        Binding("home", "scroll_by(1000000)", "Oldest", show=False),
        Binding("end", "scroll_by(-1000000)", "Newest", show=False),
        # The screen's own keys for the notes, in this panel's footer while it has focus.
        Binding("slash", "screen.filter_stream", "Filter",
                tooltip="Only the selected session's notes (again: all of them)"),
        Binding("e", "screen.toggle_flips", "Flips",
                tooltip="Show or hide sessions' status changes among the notes"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: deque[StreamItem] = deque(maxlen=KEEP)
        self.shown: deque[StreamItem] = deque(maxlen=KEEP)
        self.deliveries: dict[int, tuple[Delivery, ...]] = {}
        self.only: str | None = None
        self.flips = False  # show status flips too
        self.back = 0  # items scrolled up from the newest
        self._window: list[Strip] | None = None
        self._drawn: dict[tuple[object, ...], tuple[StreamItem, list[Strip]]] = {}
        self._update_titles()

    def _passes(self, item: StreamItem) -> bool:
        return (self.flips or not item.flip) and (self.only is None or item.involves(self.only))

    def add(self, items: list[StreamItem]) -> None:
        """Append items (oldest first); those that pass the filters are drawn."""
        for item in items:
            self.items.append(item)
            if self._passes(item):
                self.shown.append(item)
                if self.back:
                    self.back += 1  # keep the window the reader scrolled to still
        self._changed()

    def show_deliveries(self, deliveries: dict[int, list[Delivery]]) -> None:
        """Take fresh delivery states for notes (by id); redraw if any moved on."""
        fresh = {note: tuple(states) for note, states in deliveries.items()}
        if any(self.deliveries.get(note) != states for note, states in fresh.items()):
            self.deliveries.update(fresh)
            self._changed()

    def narrow(self, session: str | None) -> None:
        """Show only items involving `session` (None: everything)."""
        self.only = session
        self._refilter()

    def toggle_flips(self) -> None:
        """Show or hide sessions' status flips."""
        self.flips = not self.flips
        self._refilter()

    def _refilter(self) -> None:
        self.back = 0
        self.shown = deque((item for item in self.items if self._passes(item)), maxlen=KEEP)
        self._changed()

    def _changed(self) -> None:
        self._window = None
        self._update_titles()
        self.refresh()

    def _update_titles(self) -> None:
        title = "notes" if self.only is None else f"notes · {self.only} only"
        self.border_title = title + (" · +status" if self.flips else "")
        self.border_subtitle = f"↓ {self.back} newer (end)" if self.back else ""

    def action_scroll_by(self, items: int) -> None:
        self.back = max(0, min(self.back + items, max(len(self.shown) - 1, 0)))
        self._changed()

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self.action_scroll_by(1)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self.action_scroll_by(-1)

    def on_resize(self) -> None:
        self._window = None

    def _lines(self, width: int, height: int) -> list[Strip]:
        """The bottom `height` lines of the items up to the scrolled-to one."""
        strips: list[Strip] = []
        index = len(self.shown) - 1 - self.back
        while index >= 0 and len(strips) < height:
            strips[:0] = self._item_strips(self.shown[index], width)
            index -= 1
        strips = strips[-height:]
        return [Strip.blank(width, self.rich_style)] * (height - len(strips)) + strips

    def _item_strips(self, item: StreamItem, width: int) -> list[Strip]:
        """An item's lines, drawn once per width and delivery state (a new note redraws
        only itself; the rest come from here)."""
        states = self.deliveries.get(item.ref or -1, ()) \
            if item.kind not in ("event", "notebook") else ()
        key = (id(item), width, states)
        cached = self._drawn.get(key)
        if cached is not None and cached[0] is item:
            return cached[1]
        strips = []
        for text in stream_lines(item, states, width):
            text.truncate(width, overflow="ellipsis")
            segments = list(text.render(self.app.console))
            strips.append(Strip(segments).apply_style(self.rich_style).adjust_cell_length(
                width, self.rich_style) if segments else Strip([Segment(" " * width)]))
        if len(self._drawn) > 4 * KEEP:
            self._drawn.clear()
        self._drawn[key] = (item, strips)
        return strips

    def render_line(self, y: int) -> Strip:
        width, height = self.content_region.width, self.content_region.height
        if width <= 0 or height <= 0:
            return Strip.blank(max(width, 0), self.rich_style)
        if self._window is None or len(self._window) != height or \
                (self._window and self._window[0].cell_length != width):
            self._window = self._lines(width, height)
        return self._window[y] if y < len(self._window) else Strip.blank(width, self.rich_style)
