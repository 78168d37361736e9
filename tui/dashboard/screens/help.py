"""The help screen (`?`): every key and what it does, panel by panel (the app gives it
`keys.key_rows`, the same rows as the key table of docs/dashboard.md)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Static

from tui.dashboard.screens.reading import ReadingScreen


class HelpScreen(ReadingScreen):
    """Lists every key of every panel, grouped by where it works."""

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close")]

    def __init__(self, rows: list[tuple[str, str, str]]) -> None:
        """`rows`: (panel, keys, what they do), in order."""
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        table = Table(show_header=False, box=None, padding=(0, 2))
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        panel = None
        for where, keys, does in self.rows:
            if where != panel:
                if panel is not None:
                    table.add_row("", "")
                panel = where
                table.add_row(Text(where.capitalize(), style="bold"), "")
            table.add_row(keys, does)
        with VerticalScroll(id="help"):
            yield Static(table)
        yield Footer(compact=True)  # the modal's own keys: how to close it

    def action_close(self) -> None:
        self.dismiss(None)
