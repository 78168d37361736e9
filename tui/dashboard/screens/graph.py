"""The plan as a picture (`G`): the task graph from parents to children, each task
coloured by its status and named by its assignee (the outline of `bullpen task graph`)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Static

from board.models import Task
from tui.dashboard.screens.reading import ReadingScreen
from tui.graph import graph_lines

STATUS_COLOURS = {"triage": "magenta", "todo": "yellow", "ready": "cyan",
                  "running": "bold green", "blocked": "bold red", "review": "blue",
                  "done": "dim green", "archived": "dim"}


def graph_text(cards: list[Task]) -> Text:
    """The outline, coloured: status words as well as colour (colour-blind safe)."""
    text = Text()
    for index, line in enumerate(graph_lines(cards)):
        if index:
            text.append("\n")
        text.append(line.prefix, style="dim")
        task = line.task
        if line.again:
            text.append(f"↑ see #{task.id}", style="dim italic")
            continue
        colour = STATUS_COLOURS.get(task.status, "")
        text.append(f"#{task.id} ", style="bold " + colour)
        text.append(task.title)
        text.append(f" [{task.status}]", style=colour)
        if task.assignee:
            text.append(f" @{task.assignee}", style="cyan")
    return text if text.plain else Text("no tasks yet: n adds one", style="dim")


class GraphScreen(ReadingScreen):
    """Read-only picture of the plan, from the cards the board holds."""

    BINDINGS = [Binding("escape,q,G", "close", "Close")]

    def __init__(self, cards: list[Task]) -> None:
        super().__init__()
        self.cards = cards

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="graph"):
            yield Static(Text("the plan: who waits on whom", style="bold"))
            yield Static(graph_text(self.cards), id="graph-body")
        yield Footer(compact=True)  # the modal's own keys: how to close it, its tabs

    def action_close(self) -> None:
        self.dismiss(None)
