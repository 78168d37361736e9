"""`j`/`k` (and the arrows) scroll a read-only window, as they move the cursor in every
list of the dashboard: a base of the detail, graph and help screens."""

from __future__ import annotations

from textual.binding import Binding
from textual.containers import ScrollableContainer
from textual.screen import ModalScreen


class ReadingScreen(ModalScreen[None]):
    """A modal whose text scrolls a line at a time with j/k, a page with pgup/pgdn."""

    BINDINGS = [Binding("down,j", "read(1)", "Down", show=False),
                Binding("up,k", "read(-1)", "Up", show=False),
                Binding("pagedown", "read(10)", "Page down", show=False),
                Binding("pageup", "read(-10)", "Page up", show=False)]

    def action_read(self, lines: int) -> None:
        """Scroll the window that shows now (a tabbed screen hides its other tabs')."""
        shown = next((scroll for scroll in self.query(ScrollableContainer) if scroll.region),
                     None)
        if shown is not None:
            shown.scroll_relative(y=lines, animate=False)
