"""The status board: one `CardList` per status, fed with task deltas."""

from __future__ import annotations

from bisect import bisect_left, insort

from textual.app import ComposeResult
from textual.containers import Horizontal

from board.models import Task
from board.validate import STATUSES
from tui.dashboard.widgets.board_column import BoardColumn
from tui.dashboard.widgets.card_list import CardList


class Board(Horizontal):
    """Columns of cards; applies task changes without reloading the rest."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.tasks: dict[int, Task] = {}
        self.columns: dict[str, list[int]] = {status: [] for status in STATUSES}
        self.current: CardList | None = None  # the column whose card actions apply
        self._follow: tuple[int, str] | None = None

    def compose(self) -> ComposeResult:
        for status in STATUSES:
            yield BoardColumn(status)

    def column(self, status: str) -> CardList:
        """The column widget for `status`."""
        return self.query_one(f"#column-{status}", CardList)

    @property
    def current_task(self) -> Task | None:
        """The highlighted card of the column used last (what card actions act on)."""
        if self.current is None or self.current.task_id is None:
            return None
        return self.tasks.get(self.current.task_id)

    def apply(self, changed: list[Task], removed: set[int], initial: bool = False) -> None:
        """Upsert `changed` tasks and drop `removed` ones; redraw only touched columns."""
        touched: set[str] = set()
        if initial:
            self.tasks = {task.id: task for task in changed}
            self.columns = {status: [] for status in STATUSES}
            for task in changed:  # tasks arrive in id order, so each column stays sorted
                self.columns.setdefault(task.status, []).append(task.id)
            touched = set(STATUSES)
        else:
            for task_id in removed:
                old = self.tasks.pop(task_id, None)
                if old is not None:
                    self._drop(old)
                    touched.add(old.status)
            for task in changed:
                old = self.tasks.get(task.id)
                if old is not None and old.status != task.status:
                    self._drop(old)
                if old is None or old.status != task.status:
                    insort(self.columns.setdefault(task.status, []), task.id)
                self.tasks[task.id] = task
                touched.add(task.status)
                if old is not None:
                    touched.add(old.status)
        for status in touched & set(STATUSES):
            self.query_one(f"#lane-{status}", BoardColumn).show(self.columns[status], self.tasks)
        self._catch_follow()

    def _drop(self, task: Task) -> None:
        ids = self.columns.get(task.status, [])
        index = bisect_left(ids, task.id)
        if index < len(ids) and ids[index] == task.id:
            del ids[index]

    def follow(self, task_id: int, status: str) -> None:
        """Focus `task_id` in column `status` now, or as soon as the store says it is there."""
        self._follow = (task_id, status)
        self._catch_follow()

    def _catch_follow(self) -> None:
        if self._follow is None:
            return
        task_id, status = self._follow
        task = self.tasks.get(task_id)
        if task is not None and task.status == status:
            self._follow = None
            column = self.column(status)
            column.select(task_id)
            column.focus()
            self.current = column

    def on_card_list_highlighted(self, message: CardList.Highlighted) -> None:
        if message.card_list.has_focus or self.current is None:
            self.current = message.card_list

    def on_card_list_leave(self, message: CardList.Leave) -> None:
        message.stop()
        index = STATUSES.index(message.card_list.status) + message.step
        if 0 <= index < len(STATUSES):
            target = self.column(STATUSES[index])
            row = message.card_list.cursor - int(message.card_list.scroll_y) // 2
            target.cursor = int(target.scroll_y) // 2 + max(row, 0)
            target.focus()
            self.current = target
