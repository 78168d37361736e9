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

    def compose(self) -> ComposeResult:
        yield Static(self.status, classes="column-header")
        yield Static(self._spine(0), classes="column-spine")
        yield CardList(self.status, id=f"column-{self.status}")

    def _spine(self, count: int) -> str:
        return "\n".join([*self.status[:8], "", str(count)])

    def show(self, ids: list[int], tasks: dict[int, Task]) -> None:
        """Show these cards and their count; collapse when there are none."""
        self.query_one(".column-header", Static).update(f"{self.status} {len(ids)}")
        self.query_one(".column-spine", Static).update(self._spine(len(ids)))
        self.set_class(not ids, "-empty")
        self.query_one(CardList).show(ids, tasks)
