"""Moving between the main screen's panels: `tab` / `shift+tab` go round them (the
needs-you strip while it shows, sessions, board, notes or watcher), `1`-`4` go to one.

A base of MainScreen, as WidgetRequests is. The board counts as one panel: it is entered
at the column used last, or the first with cards, never at an empty one.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widget import Widget

from tui.dashboard.widgets.board import Board

PANELS = {"sessions": "#sessions", "board": "#board", "stream": "#stream",
          "watcher": "#watcher"}
ROUND = ("#needs", "#sessions", "#board", "#stream", "#watcher")  # tab's order


class PanelKeys(Screen[None]):
    """The keys that move the focus from panel to panel."""

    def _panels(self) -> list[Widget]:
        """The panels `tab` goes round, in order: those showing now."""
        return [panel for panel in (self.query_one(selector) for selector in ROUND)
                if panel.display]

    def _enter(self, panel: Widget) -> None:
        if isinstance(panel, Board):
            panel.focus_current()
        else:
            panel.focus()

    def action_panel(self, panel: str) -> None:
        """Focus one panel (narrow: 4 puts the watcher where the notes were, 3 back)."""
        if panel in ("stream", "watcher"):
            self.set_class(panel == "watcher", "-watcher")
        self._enter(self.query_one(PANELS[panel]))

    def action_next_panel(self, step: int) -> None:
        """Focus the next (`step` 1) or previous (-1) panel, round the screen."""
        panels = self._panels()
        focused = self.focused
        here = next((index for index, panel in enumerate(panels)
                     if focused is not None and (focused is panel
                                                 or panel in focused.ancestors)), -1)
        if here < 0 and step < 0:
            here = 0
        self._enter(panels[(here + step) % len(panels)])
