"""The board's column order: which status lies left or right of another.

The columns are the task statuses in their documented order (`vocabulary.TASK_STATUSES`);
moving a card one column is `tasks.move` to the neighbouring status, so every rule of a
move (waiting parents, released children, events) applies unchanged.
"""

from __future__ import annotations

from board import tasks
from board.connection import Connection
from board.errors import Refused
from board.identity import Caller
from board.models import Task
from board.vocabulary import TASK_STATUSES, TaskStatus


def neighbour(status: str, step: int) -> str | None:
    """The status `step` columns from `status` (-1 left, 1 right), or None past an edge."""
    index = TASK_STATUSES.index(TaskStatus(status)) + step
    return TASK_STATUSES[index] if 0 <= index < len(TASK_STATUSES) else None


def move_by(conn: Connection, caller: Caller, task_id: int, step: int) -> Task:
    """Move a task one column left or right: `tasks.move` to the neighbouring status."""
    task = tasks.get(conn, task_id)
    target = neighbour(task.status, step)
    if target is None:
        raise Refused(f"task {task_id} is {task.status}; there is no column beyond it")
    return tasks.move(conn, caller, task_id, target)
