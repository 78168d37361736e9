"""The board's key actions, each one the board function the matching CLI command calls."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from board import tasks
from board.errors import BadInput, Refused
from board.identity import Caller
from board.models import Task
from board.validate import STATUSES
from tui.dashboard.screens.prompt import Field, PromptScreen
from tui.dashboard.screens.task_detail import TaskDetailScreen

if TYPE_CHECKING:
    from tui.dashboard.screens.main import MainScreen

BOARD_ACTIONS = {"move_left", "move_right", "assign", "details", "done", "block", "archive",
                 "comment"}


def move_by(conn: sqlite3.Connection, caller: Caller, task_id: int, step: int) -> Task:
    """Move a task one column left or right: `tasks.move` to the neighbouring status."""
    task = tasks.get(conn, task_id)
    index = STATUSES.index(task.status) + step
    if not 0 <= index < len(STATUSES):
        raise Refused(f"task {task_id} is {task.status}; there is no column beyond it")
    return tasks.move(conn, caller, task_id, STATUSES[index])


def parse_ids(text: str) -> list[int]:
    """'3, 4 #5' → [3, 4, 5]; anything else is refused."""
    found = []
    for word in text.replace(",", " ").split():
        if not word.lstrip("#").isdigit():
            raise BadInput(f"not a task id: {word!r}")
        found.append(int(word.lstrip("#")))
    return found


class CardActions:
    """Mixed into the main screen: board key actions on the highlighted card."""

    def _card(self: MainScreen) -> Task | None:
        task = self.board.current_task
        if task is None:
            self.notify("no card selected", severity="warning")
        return task

    def action_move_left(self: MainScreen) -> None:
        if task := self._card():
            self.write_store(move_by, task.id, -1, follow=task.id)

    def action_move_right(self: MainScreen) -> None:
        if task := self._card():
            self.write_store(move_by, task.id, 1, follow=task.id)

    def action_archive(self: MainScreen) -> None:
        if task := self._card():
            self.write_store(tasks.move, task.id, "archived", follow=task.id)

    def action_done(self: MainScreen) -> None:
        if not (task := self._card()):
            return
        fields = [Field("summary", "Handoff summary (optional)", placeholder="what the next"
                        " session needs to know")]

        def finish(answer: dict[str, str] | None) -> None:
            if answer is not None:
                self.write_store(tasks.done, task.id, answer["summary"].strip() or None,
                                 follow=task.id)
        self.app.push_screen(PromptScreen(f"Done: #{task.id} {task.title}", fields), finish)

    def action_block(self: MainScreen) -> None:
        if not (task := self._card()):
            return

        def block(answer: dict[str, str] | None) -> None:
            if answer is not None:
                self.write_store(tasks.block, task.id, answer["reason"].strip(), follow=task.id)
        self.app.push_screen(PromptScreen(f"Block: #{task.id} {task.title}",
                                          [Field("reason", "Reason")]), block)

    def action_comment(self: MainScreen) -> None:
        if not (task := self._card()):
            return

        def comment(answer: dict[str, str] | None) -> None:
            if answer is not None:
                self.write_store(tasks.comment, task.id, answer["text"].strip())
        self.app.push_screen(PromptScreen(f"Comment: #{task.id} {task.title}",
                                          [Field("text", "Comment")]), comment)

    def action_assign(self: MainScreen) -> None:
        if not (task := self._card()):
            return
        names = ", ".join(self.sessions_table.rows_by_name) or "no sessions yet"

        def assign(answer: dict[str, str] | None) -> None:
            if answer is not None:
                who = answer["session"].strip()
                self.write_store(tasks.assign, task.id, None if who in ("", "-") else who)
        self.app.push_screen(PromptScreen(
            f"Assign: #{task.id} {task.title}",
            [Field("session", f"Session ({names}; '-' for nobody)", task.assignee or "")]),
            assign)

    def action_new_task(self: MainScreen) -> None:
        fields = [Field("title", "Title"), Field("assign", "Assign to (optional)",
                                                 self.sessions_table.selected or ""),
                  Field("after", "After task ids (optional)", placeholder="e.g. 3 4"),
                  Field("body", "Details (optional)")]

        def add(answer: dict[str, str] | None) -> None:
            if answer is None:
                return
            try:
                after = parse_ids(answer["after"])
            except BadInput as error:
                self.notify(str(error), severity="error")
                return
            self.write_store(tasks.add, answer["title"].strip(), body=answer["body"].strip(),
                             assignee=answer["assign"].strip() or None, after=after)
        self.app.push_screen(PromptScreen("New card", fields), add)

    def action_details(self: MainScreen) -> None:
        if task := self._card():
            self.load_details(task.id)

    def show_details(self: MainScreen, task: Task) -> None:
        """Open the detail screen for a task the worker loaded."""
        linked = (*task.parents, *task.children)
        titles = {i: self.board.tasks[i].title for i in linked if i in self.board.tasks}
        self.app.push_screen(TaskDetailScreen(task, titles))
