"""The plan as a picture: tasks as an outline from parents to children, so who waits on
whom is seen. One renderer for `bullpen task graph` and the dashboard's graph view.

Each task is drawn once, under its first parent; a task with several parents is named
again (as `↑ see #N`) under the others. Roots come in id order. Archived tasks are left
out, as on the board's default view. ASCII connectors when the output is not a terminal.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from board.models import Task
from board.vocabulary import TaskStatus

UNICODE = {"tee": "├─▶ ", "last": "└─▶ ", "pipe": "│   ", "gap": "    ", "again": "↑ see"}
ASCII = {"tee": "|-> ", "last": "`-> ", "pipe": "|   ", "gap": "    ", "again": "^ see"}


@dataclass(frozen=True)
class GraphLine:
    """One line of the picture: the connectors, then a task (or a reference to one)."""

    prefix: str
    task: Task
    again: bool = False  # drawn already under another parent

    def text(self, connectors: dict[str, str] = UNICODE) -> str:
        """The line as plain text."""
        if self.again:
            return f"{self.prefix}{connectors['again']} #{self.task.id}"
        who = f" @{self.task.assignee}" if self.task.assignee else ""
        return f"{self.prefix}#{self.task.id} {self.task.title} [{self.task.status}]{who}"


def graph_lines(cards: Iterable[Task], ascii_only: bool = False) -> list[GraphLine]:
    """The outline of `cards` (each with its parents), roots first, children indented."""
    tasks = {card.id: card for card in cards if card.status != TaskStatus.ARCHIVED}
    children: dict[int, list[int]] = {}
    for card in tasks.values():
        for parent in card.parents:
            if parent in tasks:
                children.setdefault(parent, []).append(card.id)
    connectors = ASCII if ascii_only else UNICODE
    lines: list[GraphLine] = []
    drawn: set[int] = set()

    def draw(task_id: int, prefix: str, branch: str) -> None:
        if task_id in drawn:
            lines.append(GraphLine(prefix + branch, tasks[task_id], again=True))
            return
        drawn.add(task_id)
        lines.append(GraphLine(prefix + branch, tasks[task_id]))
        below = sorted(children.get(task_id, ()))
        inner = prefix + (connectors["pipe"] if branch == connectors["tee"] else
                          connectors["gap"] if branch else "")
        for index, child in enumerate(below):
            draw(child, inner, connectors["last" if index == len(below) - 1 else "tee"])

    roots = [task_id for task_id, card in sorted(tasks.items())
             if not any(parent in tasks for parent in card.parents)]
    for root in roots:
        draw(root, "", "")
    for task_id in sorted(set(tasks) - drawn):  # only a cycle could leave one; never lose it
        draw(task_id, "", "")
    return lines
