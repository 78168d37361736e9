"""One board column: a header (status and count) above the column's `CardList`.

An empty column collapses to a narrow spine (its name spelt downwards and its count) so
the width goes to columns with cards; it opens again while it holds the focus (see
`.board-column.-empty` in dashboard.tcss).
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
        yield Static(self._spine(0), classes="column-spine")
        yield CardList(self.status, id=f"column-{self.status}")

    def _spine(self, count: int) -> str:
        return "\n".join([*self.status[:8], "", str(count)])

    def show(self, ids: list[int], tasks: dict[int, Task]) -> None:
        """Show these cards and their count; collapse when there are none. The header and
        the spine keep their size whatever the count: no layout for a new count (a layout
        costs a redraw of the whole screen)."""
        if len(ids) != self.count:
            self.count = len(ids)
            self.query_one(".column-header", Static).update(f"{self.status} {len(ids)}",
                                                            layout=False)
            self.query_one(".column-spine", Static).update(self._spine(len(ids)),
                                                           layout=False)
            self.set_class(not ids, "-empty")
        self.query_one(CardList).show(ids, tasks)
