"""The status board: one column per status, fed with task deltas; its keys act on the
highlighted card and post request messages up to the screen, which writes the store.

Columns with cards share the width; the empty ones are named on one row above them
(`triage 0 · todo 0 · review 0`), and `h`/`l` step over them (a card still moves into
them with `shift+←/→`)."""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Static

from board.columns import neighbour
from board.errors import BadInput
from board.models import Task
from board.validate import STATUSES
from board.vocabulary import TaskStatus
from tui.dashboard.code_marks import CodeMark
from tui.dashboard.commands import bindings_for
from tui.dashboard.prompt import Answer, Field, PromptScreen, open_form
from tui.dashboard.widgets.board_column import BoardColumn
from tui.dashboard.widgets.card_list import CardList

NO_REASON = "no reason given"  # a blocked card always says why, even when nobody did
CARD_ACTIONS = frozenset({"move_left", "move_right", "assign", "details", "done", "block",
                          "archive", "comment"})


class Board(Vertical):
    """Columns of cards; applies task changes without reloading the rest."""

    BINDINGS = bindings_for("board")

    @dataclass
    class MoveRequested(Message):
        """Move the card one column (`step` -1 or 1)."""

        task_id: int
        step: int

    @dataclass
    class ArchiveRequested(Message):
        """Archive the card; `ask` first (x, or a move key: L, shift+right)."""

        task_id: int
        ask: bool = False

    @dataclass
    class DoneRequested(Message):
        task_id: int
        summary: str | None
        form: PromptScreen | None = None  # closes once written; refused, it says why

    @dataclass
    class BlockRequested(Message):
        task_id: int
        reason: str
        form: PromptScreen | None = None

    @dataclass
    class CommentRequested(Message):
        task_id: int
        text: str
        form: PromptScreen | None = None

    @dataclass
    class AssignRequested(Message):
        task_id: int
        assignee: str | None  # None: nobody
        form: PromptScreen | None = None

    @dataclass
    class AddRequested(Message):
        """A new card, waiting for the tasks in `after`."""

        title: str
        body: str
        assignee: str | None
        after: list[int]
        form: PromptScreen | None = None

    @dataclass
    class DetailsRequested(Message):
        task_id: int

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.tasks: dict[int, Task] = {}
        self.columns: dict[str, list[int]] = {status: [] for status in STATUSES}
        self.current: CardList | None = None  # the column whose card actions apply
        self.session_names: list[str] = []  # set by the screen, offered when assigning
        self.selected_session: str | None = None  # the default assignee of a new card
        self._follow: tuple[int, str] | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="board-empties")
        with Horizontal(id="lanes"):
            for status in STATUSES:
                yield BoardColumn(status)

    def _show_empties(self) -> None:
        """Name the empty columns on the strip above the board (hidden when none is)."""
        lanes = [lane for lane in self.query(BoardColumn) if not lane.count]
        strip = self.query_one("#board-empties", Static)
        strip.update(" · ".join(lane.label for lane in lanes))
        strip.display = bool(lanes)

    def column(self, status: str) -> CardList:
        """The column widget for `status`."""
        return self.query_one(f"#column-{status}", CardList)

    @property
    def current_task(self) -> Task | None:
        """The highlighted card of the column used last (what card actions act on)."""
        if self.current is None or self.current.task_id is None:
            return None
        return self.tasks.get(self.current.task_id)

    def show_sessions(self, rows: list) -> None:  # noqa: ANN001 - feed.SessionRow
        """Know the sessions (for assigning cards), and badge the running cards of those
        the radar predicts a conflict for."""
        self.session_names = [row.session.name for row in rows]
        sessions = frozenset(row.session.name for row in rows if row.conflicts)
        running = self.column(TaskStatus.RUNNING)
        if running.conflicted != sessions:
            running.conflicted = sessions
            running.refresh()

    def show_code(self, marks: dict[str, CodeMark]) -> None:
        """Say on each done card whether its session's work landed (by session name)."""
        done = self.column(TaskStatus.DONE)
        if done.code != marks:
            done.code = marks
            done.refresh()

    def apply(self, changed: list[Task], removed: set[int], initial: bool = False) -> set[str]:
        """Upsert `changed` tasks and drop `removed` ones; redraw only touched columns (the
        statuses returned: the cards' old and new ones)."""
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
        emptied = False
        for status in touched & set(STATUSES):
            lane = self.query_one(f"#lane-{status}", BoardColumn)
            emptied = lane.show(self.columns[status], self.tasks) or emptied
        if emptied:
            self._show_empties()
            self._leave_emptied_focus()
        self._catch_follow()
        return touched

    def _leave_emptied_focus(self) -> None:
        """A focused column whose last card left hands the focus to one with cards: an
        empty column shows only while focused, and would keep width the cards need."""
        focused = self.app.focused
        if isinstance(focused, CardList) and not focused.ids and focused in self.query(
                CardList) and any(self.columns.values()):
            self.focus_first()

    def _drop(self, task: Task) -> None:
        ids = self.columns.get(task.status, [])
        index = bisect_left(ids, task.id)
        if index < len(ids) and ids[index] == task.id:
            del ids[index]

    def focus_first(self) -> None:
        """Focus the ready column, or the first with cards when it is empty."""
        status = next((status for status in (TaskStatus.READY, *STATUSES)
                       if self.columns[status]), TaskStatus.READY)
        self.column(status).focus()
        self.current = self.column(status)

    def focus_current(self) -> None:
        """Focus the column used last, if it still has cards; else as `focus_first`."""
        if self.current is not None and self.current.ids:
            self.current.focus()
        else:
            self.focus_first()

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
        status = neighbour(message.card_list.status, message.step)
        while status is not None and not self.columns[status]:  # step over empty columns
            status = neighbour(status, message.step)
        if status is not None:
            target = self.column(status)
            target.cursor = target.row_at(message.card_list.visible_row)
            target.focus()
            self.current = target

    # Key actions: each asks the screen (by message) for one board function.

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Card actions need a card (their keys show dimmed otherwise)."""
        if action in CARD_ACTIONS and self.is_mounted and self.current_task is None:
            return None
        return True

    async def _ask(self, title: str, fields: list[Field],
                   then: Callable[[Answer, PromptScreen], object]) -> None:
        """A form whose answer `then` turns into a request; the form stays open until the
        store took it (or shows why not)."""
        form = PromptScreen(title, fields, submit=lambda answer: then(answer, form))
        await open_form(self.app, form)

    async def action_move_left(self) -> None:
        await self._move(-1)

    async def action_move_right(self) -> None:
        await self._move(1)

    async def _move(self, step: int) -> None:
        """Move the card a column; into blocked only with a reason (asked for), into
        archived only once confirmed (L archives a done card, and L lands on sessions)."""
        if not (task := self.current_task):
            return
        target = neighbour(task.status, step)
        if target == TaskStatus.BLOCKED:
            await self.action_block()
        elif target == TaskStatus.ARCHIVED:
            self.post_message(self.ArchiveRequested(task.id, ask=True))
        else:
            self.post_message(self.MoveRequested(task.id, step))

    def action_archive(self) -> None:
        if task := self.current_task:  # one key takes a card off the board: ask first
            self.post_message(self.ArchiveRequested(task.id, ask=True))

    def action_details(self) -> None:
        if task := self.current_task:
            self.post_message(self.DetailsRequested(task.id))

    async def action_done(self) -> None:
        if task := self.current_task:
            await self._ask(f"Done: #{task.id} {task.title}",
                            [Field("summary", "Handoff summary (optional)",
                                   placeholder="what the next session needs to know")],
                            lambda answer, form: self.post_message(self.DoneRequested(
                                task.id, answer["summary"].strip() or None, form)))

    async def action_block(self) -> None:
        if task := self.current_task:
            await self._ask(f"Block: #{task.id} {task.title}",
                            [Field("reason", "Why is it blocked? (optional)",
                                   placeholder=NO_REASON)],
                            lambda answer, form: self.post_message(self.BlockRequested(
                                task.id, answer["reason"].strip() or NO_REASON, form)))

    async def action_comment(self) -> None:
        if task := self.current_task:
            await self._ask(f"Comment: #{task.id} {task.title}", [Field("text", "Comment")],
                            lambda answer, form: self.post_message(self.CommentRequested(
                                task.id, answer["text"].strip(), form)))

    async def action_assign(self) -> None:
        if not (task := self.current_task):
            return
        names = ", ".join(self.session_names) or "no sessions yet"

        def assign(answer: Answer, form: PromptScreen) -> None:
            who = answer["session"].strip()
            self.post_message(self.AssignRequested(
                task.id, None if who in ("", "-") else who, form))
        await self._ask(f"Assign: #{task.id} {task.title}",
                        [Field("session", f"Session ({names}; '-' for nobody)",
                               task.assignee or "", names=self.session_names)], assign)

    async def action_new_task(self) -> None:
        fields = [Field("title", "Title"),
                  Field("assign", "Assign to (optional)",  # never pre-filled: no accidents
                        placeholder=f"a session, e.g. {self.selected_session or 'coder'}",
                        names=self.session_names),
                  Field("after", "After task ids (optional)", placeholder="e.g. 3 4",
                        check=ids_refused),
                  Field("body", "Details (optional)")]

        def add(answer: Answer, form: PromptScreen) -> None:
            self.post_message(self.AddRequested(answer["title"].strip(), answer["body"].strip(),
                                                answer["assign"].strip() or None,
                                                parse_ids(answer["after"]), form))
        await self._ask("New card", fields, add)


def ids_refused(text: str) -> str | None:
    """Why `text` is not a list of task ids, or None when it is."""
    try:
        parse_ids(text)
    except BadInput as error:
        return str(error)
    return None


def parse_ids(text: str) -> list[int]:
    """'3, 4 #5' → [3, 4, 5]; anything else is refused."""
    found = []
    for word in text.replace(",", " ").split():
        if not word.lstrip("#").isdigit():
            raise BadInput(f"not a task id: {word!r}")
        found.append(int(word.lstrip("#")))
    return found
