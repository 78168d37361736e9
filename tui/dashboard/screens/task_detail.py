"""A card's details: body, parents and children, block reason, comments, handoff summary."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Static

from board.models import Task
from tui.dashboard.format import clock
from tui.dashboard.screens.reading import ReadingScreen


class TaskDetailScreen(ReadingScreen):
    """Read-only view of one task, as loaded from the store by a worker."""

    BINDINGS = [Binding("escape,q,enter", "close", "Close")]

    def __init__(self, task: Task, titles: dict[int, str]) -> None:
        super().__init__()
        self.task_record = task
        self.titles = titles

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="detail"):
            yield Static(self._render_task(), id="detail-body")
        yield Footer(compact=True)  # the modal's own keys: how to close it, its tabs

    def _links(self, label: str, ids: tuple[int, ...]) -> Text:
        line = Text(f"{label}: ", style="bold")
        if not ids:
            return line.append("none", style="dim")
        return line.append(", ".join(f"#{i} {self.titles.get(i, '?')}" for i in ids))

    def _render_task(self) -> Group:
        task = self.task_record
        parts: list[Text] = [
            Text(f"#{task.id} {task.title}", style="bold"),
            Text(f"{task.status} · assignee {task.assignee or '-'} · by {task.created_by}"
                 f" · updated {clock(task.updated_at)}", style="dim"),
            Text(""),
            Text(task.body or "(no body)", style="" if task.body else "dim"),
            Text(""),
            self._links("after (parents)", task.parents),
            self._links("before (children)", task.children),
        ]
        if task.status == "blocked" and task.block_reason:
            parts.append(Text(f"blocked: {task.block_reason}", style="red"))
        if task.summary:
            parts += [Text(""), Text("handoff summary", style="bold magenta"), Text(task.summary)]
        parts += [Text(""), Text(f"comments ({len(task.comments)})", style="bold")]
        for comment in task.comments:
            parts.append(Text.assemble((f"{clock(comment.created_at)} {comment.author}: ", "dim"),
                                       comment.body))
        return Group(*parts)

    def action_close(self) -> None:
        self.dismiss(None)
