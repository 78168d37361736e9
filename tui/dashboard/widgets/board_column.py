"""One board column: a header (status and count) above the column's `CardList`."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from board.models import Task
from tui.dashboard.widgets.card_list import CardList


class BoardColumn(Vertical):
    """A status column; the header stays put while the cards scroll."""

    def __init__(self, status: str) -> None:
        super().__init__(id=f"lane-{status}", classes="board-column")
        self.status = status

    def compose(self) -> ComposeResult:
        yield Static(self.status, classes="column-header")
        yield CardList(self.status, id=f"column-{self.status}")

    def show(self, ids: list[int], tasks: dict[int, Task]) -> None:
        """Show these cards and their count."""
        self.query_one(Static).update(f"{self.status} {len(ids)}" if ids else self.status)
        self.query_one(CardList).show(ids, tasks)
