"""One board column: a header (status and count) above the column's `CardList`.

An empty column takes no width: the board names it, with its count, on the one-row
strip above the columns (`triage 0 · todo 0 · review 0`), so the width goes to columns
with cards. Should an empty column hold the focus (a board with no cards at all), it
shows as a narrow column of its own (see `.board-column.-empty` in dashboard.tcss).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from board.models import Task
from tui.dashboard.widgets.card_list import CardList


class BoardColumn(Vertical):
    """A status column; the header stays put while the cards scroll."""

    def __init__(self, status: str) -> None:
        super().__init__(id=f"lane-{status}", classes="board-column -empty")
        self.status = status
        self.count = -1  # the cards shown (none yet: the first show writes the header)

    def compose(self) -> ComposeResult:
        yield Static(self.status, classes="column-header")
        yield CardList(self.status, id=f"column-{self.status}")

    @property
    def label(self) -> str:
        """`done 3`: the header, and the column's name on the board's strip of empties."""
        return f"{self.status} {max(self.count, 0)}"

    def show(self, ids: list[int], tasks: dict[int, Task]) -> bool:
        """Show these cards and their count; collapse when there are none. Returns whether
        the column emptied or filled (the board's strip of empty columns changes then). The
        header keeps its size whatever the count: no layout for a new count (a layout costs
        a redraw of the whole screen)."""
        changed = False
        if len(ids) != self.count:
            changed = self.count < 0 or (self.count == 0) != (not ids)
            self.count = len(ids)
            self.query_one(".column-header", Static).update(self.label, layout=False)
            self.set_class(not ids, "-empty")
        self.query_one(CardList).show(ids, tasks)
        return changed
