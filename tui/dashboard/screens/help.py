"""The help screen (`?`): every key and what it does."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from tui.dashboard.commands import COMMANDS, display_key

NAVIGATION = (
    ("tab / shift+tab", "Next / previous panel"),
    ("1 2 3 4", "Sessions, board, notes, watcher (narrow: 4 shows the watcher"
                " in the notes' place, 3 the notes again)"),
    ("g  enter", "Needs-you strip: next item; go to its pane or card"),
    ("← → h l", "Board: previous / next column"),
    ("↑ ↓ j k", "Move between cards or rows"),
    ("ctrl+p", "Command palette (every action)"),
    ("q", "Close the dashboard (asks; the room keeps running, bullpen up brings it back)"),
)
GROUP_TITLES = {"board": "Board", "sessions": "Sessions", "global": "Anywhere"}
GROUP_WHEN = {"board": "a card is focused", "sessions": "a session row is focused",
              "global": ""}


class HelpScreen(ModalScreen[None]):
    """Lists navigation keys and every command, grouped by where it works."""

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close")]

    def compose(self) -> ComposeResult:
        table = Table(show_header=False, box=None, padding=(0, 2))
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        table.add_row("[b]Navigation[/b]", "")
        for keys, text in NAVIGATION:
            table.add_row(keys, text)
        for group, title in GROUP_TITLES.items():
            table.add_row("", "")
            table.add_row(f"[b]{title}[/b]", f"[dim]{GROUP_WHEN[group]}[/dim]")
            for command in COMMANDS:
                if command.group == group:
                    table.add_row(display_key(command), f"{command.title} — {command.help}")
        with VerticalScroll(id="help"):
            yield Static(table)
        yield Footer(compact=True)  # the modal's own keys: how to close it, its tabs

    def action_close(self) -> None:
        self.dismiss(None)
