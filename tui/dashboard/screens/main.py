"""The dashboard's one screen: it composes the panels, turns their request messages into
board functions and runtime verbs, and runs everything that blocks in thread workers.

Widgets own their keys (the board its card keys, the sessions table its row keys) and
post `…Requested` messages; the screen keeps only the keys that span panels. Workers
never touch widgets: they post a result message, and their failures all arrive at
`on_worker_state_changed` (every worker runs with `exit_on_error=False`: a refused move
or a missing tmux must not close the view).
"""

from __future__ import annotations

import sys
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer
from textual.worker import Worker, WorkerState

from board import notes
from board.errors import BadInput
from board.home import DB_NAME
from board.models import EVERYONE, Task
from board.vocabulary import OPERATOR, TaskStatus
from tui.dashboard.actions import SessionActions
from tui.dashboard.coalesce import DeltaBox
from tui.dashboard.code_marks import code_mark
from tui.dashboard.commands import Command, bindings_for
from tui.dashboard.feed import RoomDelta
from tui.dashboard.heap import settle_heap
from tui.dashboard.jobs import Jobs
from tui.dashboard.messages import (
    ChangedFilesCounted,
    CodeFlowsLoaded,
    CoordinatorChecked,
    PreviewCaptured,
    RoomUpdated,
    RuntimeDone,
    SessionDetailLoaded,
    StoreWritten,
    TailFailed,
    TaskLoaded,
)
from tui.dashboard.needs import Attention
from tui.dashboard.prompt import Answer, Field, PromptScreen, open_form
from tui.dashboard.screens.landing_requests import LandingRequests
from tui.dashboard.screens.panels import PanelKeys
from tui.dashboard.screens.requests import WidgetRequests
from tui.dashboard.screens.task_detail import TaskDetailScreen
from tui.dashboard.tail import EventTail
from tui.dashboard.widgets.board import Board
from tui.dashboard.widgets.needs_you import NeedsYou
from tui.dashboard.widgets.note_stream import NoteStream
from tui.dashboard.widgets.preview import Preview
from tui.dashboard.widgets.sessions_table import SessionsTable
from tui.dashboard.widgets.watcher_table import WatcherTable
from tui.dashboard.writer import StoreWriter

PREVIEW_SECONDS = 1.0
TAIL_SWITCH_SECONDS = 0.001
COORDINATOR_CHECK_SECONDS = 5.0  # closing the dashboard stops nothing; it revives, too


class MainScreen(WidgetRequests, LandingRequests, PanelKeys):
    """Composes the panels, applies store deltas, and runs blocking work in threads (the
    board's and the sessions table's requests: WidgetRequests; landing: LandingRequests;
    moving between panels: PanelKeys)."""

    BINDINGS = bindings_for("global")

    def __init__(self, home: Path, actions: SessionActions, bell: bool = True) -> None:
        super().__init__()
        self.home = home
        self.actions = actions
        self.bell = bell  # ring once for each new thing that needs the human
        self.attention = Attention()
        self.writer: StoreWriter | None = None
        self.tail: EventTail | None = None
        self.jobs: Jobs  # set on mount, with the writer and the tail it uses
        self.applied_event = 0  # the newest event id shown (tests and the bench wait on it)
        self.loaded = False
        # A burst of deltas is merged while the screen is busy: one redraw shows them all.
        self.deltas = DeltaBox(lambda: self.post_message(RoomUpdated()))
        self._code_key: object = None  # what the code-flow marks were last read for
        self._capturing: str | None = None  # the session whose pane a worker is capturing

    def compose(self) -> ComposeResult:
        yield NeedsYou(id="needs")
        with Horizontal(id="top"):
            yield SessionsTable(id="sessions")
            yield Preview(id="preview")
        yield Board(id="board")
        with Horizontal(id="bottom"):
            yield NoteStream(id="stream")
            yield WatcherTable(id="watcher")
        yield Footer(compact=True)

    @property
    def board(self) -> Board:
        return self.query_one(Board)

    @property
    def sessions_table(self) -> SessionsTable:
        return self.query_one(SessionsTable)

    @property
    def stream(self) -> NoteStream:
        return self.query_one(NoteStream)

    @property
    def preview(self) -> Preview:
        return self.query_one(Preview)

    def on_mount(self) -> None:
        self.writer = StoreWriter(self.home)
        self.tail = EventTail(self.home / DB_NAME, on_delta=self.deltas.put,
                              on_error=lambda error: self.post_message(TailFailed(str(error))))
        # The tail thread reads between the event loop's draws; with Python's 5 ms switch
        # interval a busy loop kept it waiting for the GIL (a 2 ms panel read took 140 ms).
        sys.setswitchinterval(TAIL_SWITCH_SECONDS)
        self.tail.start()
        self.jobs = Jobs(self, self.writer, self.tail, self.actions)
        self.set_interval(PREVIEW_SECONDS, self.refresh_preview)
        self.set_interval(PREVIEW_SECONDS, self.take_deltas)
        self.set_interval(COORDINATOR_CHECK_SECONDS, self.jobs.keep_coordinator)
        self.jobs.keep_coordinator()  # its trouble shows at once, not 5 s later
        self.board.column(TaskStatus.READY).focus()

    def on_unmount(self) -> None:
        if self.tail is not None:
            self.tail.stop()
        if self.writer is not None:
            self.writer.close()

    # The store's deltas, from the tail thread.

    def on_room_updated(self, message: RoomUpdated) -> None:
        self.take_deltas()

    def take_deltas(self) -> None:
        """Show every delta waiting (also once a second: a lost message never freezes
        the view)."""
        delta = self.deltas.take()
        if delta is not None:
            self.apply_delta(delta)

    def apply_delta(self, delta: RoomDelta) -> None:
        """Show what changed: each panel redraws only what `delta` touches."""
        had_card = self.board.current_task is not None
        touched: set[str] = set()
        if delta.tasks or delta.removed_tasks or delta.initial:
            touched = self.board.apply(delta.tasks, delta.removed_tasks, initial=delta.initial)
        if delta.stream:
            self.stream.add(delta.stream)
        if delta.sessions is not None:
            self.sessions_table.show(delta.sessions)
            self.board.show_sessions(delta.sessions)
        if delta.alerts is not None:
            self.query_one(WatcherTable).show(delta.alerts)
        if delta.deliveries is not None:
            self.stream.show_deliveries(delta.deliveries)
        if self.attention.update(delta) or TaskStatus.BLOCKED in touched:
            self.show_needs(initial=delta.initial)
        changed = ([row.session.name for row in delta.sessions or ()] if delta.initial
                   else sorted(delta.changed_sessions))
        if changed:
            self.jobs.count_changed(changed)
        if changed or touched or self._code_moved(delta):
            self.jobs.load_code()  # a commit, a landing, a conflict or a done task
        self.applied_event = max(self.applied_event, delta.last_event)
        if delta.initial:
            self.loaded = True
            self.board.focus_first()
            self.refresh_preview()
            self.call_after_refresh(settle_heap)
        if delta.initial or had_card != (self.board.current_task is not None):
            self.refresh_bindings()  # the card keys' state follows the highlighted card

    def _code_moved(self, delta: RoomDelta) -> bool:
        """Whether the sessions' rows changed in what the code-flow marks depend on (a
        branch, a conflict, a session come or gone); a new unread count is not that."""
        if delta.sessions is None:
            return False
        key = tuple((row.session.name, row.session.branch, row.conflicts)
                    for row in delta.sessions)
        moved, self._code_key = key != self._code_key, key
        return moved

    def show_needs(self, initial: bool = False) -> None:
        """Redraw the needs-you strip; ring for new entries; tell tmux the count."""
        board = self.board
        blocked = [board.tasks[i] for i in board.columns.get(TaskStatus.BLOCKED, ())
                   if i in board.tasks]
        needs = self.attention.needs(blocked)
        self.query_one(NeedsYou).show(needs)
        fresh = self.attention.fresh(needs)
        if fresh and self.bell and not initial:
            self.app.bell()
        if self.attention.count_changed(len(needs)):
            self.jobs.show_attention(len(needs))

    def on_coordinator_checked(self, message: CoordinatorChecked) -> None:
        if self.attention.set_coordinator(message.state):
            self.show_needs()

    def on_tail_failed(self, message: TailFailed) -> None:
        self.notify(f"reading the store failed: {message.error}", severity="error")

    # Worker results.

    def on_preview_captured(self, message: PreviewCaptured) -> None:
        self.preview.show(message.session, message.text)

    def on_changed_files_counted(self, message: ChangedFilesCounted) -> None:
        self.sessions_table.show_changed(message.counts)

    def on_code_flows_loaded(self, message: CodeFlowsLoaded) -> None:
        marks = {name: code_mark(flow) for name, flow in message.flows.items()}
        self.board.show_code({name: mark for name, mark in marks.items() if mark})

    def on_store_written(self, message: StoreWritten) -> None:
        task = message.result[0] if isinstance(message.result, tuple) else message.result
        if message.follow is not None and isinstance(task, Task) and task.id == message.follow:
            self.board.follow(task.id, task.status)

    def on_task_loaded(self, message: TaskLoaded) -> None:
        task = message.task
        titles = {i: self.board.tasks[i].title for i in (*task.parents, *task.children)
                  if i in self.board.tasks}
        self.app.push_screen(TaskDetailScreen(task, titles))

    def on_session_detail_loaded(self, message: SessionDetailLoaded) -> None:
        from tui.dashboard.screens.session_detail import SessionDetailScreen

        self.app.push_screen(SessionDetailScreen(message.detail))

    def on_runtime_done(self, message: RuntimeDone) -> None:
        if message.text:
            self.notify(message.text)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one handler for worker failures: each becomes a notification (a failed
        capture shows in the preview instead)."""
        worker = event.worker
        if worker.group == "preview" and event.state in (WorkerState.SUCCESS,
                                                         WorkerState.ERROR,
                                                         WorkerState.CANCELLED):
            session, self._capturing = self._capturing, None
            if event.state is WorkerState.ERROR and session is not None:
                self.preview.show(session, f"(no pane to show: {worker.error})")
            return
        if event.state is not WorkerState.ERROR:
            return
        error = worker.error
        if isinstance(error, BadInput):
            self.notify(str(error), title="refused", severity="error")
        else:
            self.notify(f"{worker.description}: {error}", severity="error")

    def on_needs_you_chosen(self, message: NeedsYou.Chosen) -> None:
        need = message.need
        if need.task is not None and need.task in self.board.tasks:
            self.board.follow(need.task, self.board.tasks[need.task].status)
        elif need.session is not None:
            self.jobs.run_runtime(f"focus {need.session}", self.actions.focus, need.session)

    def on_needs_you_answer_requested(self, message: NeedsYou.AnswerRequested) -> None:
        from tui.dashboard.screens.answer import ask_and_answer

        ask_and_answer(self, self.jobs, self.actions, message.session)

    @on(DataTable.RowHighlighted, "#sessions")
    def _session_highlighted(self) -> None:
        self.board.selected_session = self.sessions_table.selected
        self.sessions_table.show_title()
        self.refresh_preview()

    # Keys that span panels.

    async def run_command(self, command: Command) -> None:
        """Run a command from the palette on the widget whose keys it belongs to."""
        owner = {"board": self.board, "sessions": self.sessions_table}.get(command.group, self)
        await owner.run_action(command.action)

    def action_next_need(self) -> None:
        self.query_one(NeedsYou).next()

    async def action_compose(self) -> None:
        await self._compose_to(self.sessions_table.selected or EVERYONE)

    async def action_compose_all(self) -> None:
        await self._compose_to(EVERYONE)

    async def _compose_to(self, to: str) -> None:
        names = [*self.board.session_names, EVERYONE, OPERATOR]
        fields = [Field("to", "To (a session, 'all' or 'operator')", to, names=names),
                  Field("text", "Note")]

        def send(answer: Answer) -> None:
            self.jobs.write_store(notes.send, answer["to"].strip(), answer["text"], form=form)
        form = PromptScreen("Send a note", fields, focus="text", submit=send)
        await open_form(self.app, form)

    def action_filter_stream(self) -> None:
        selected = self.sessions_table.selected
        self.stream.narrow(None if self.stream.only is not None or selected is None
                           else selected)

    def action_graph(self) -> None:
        from tui.dashboard.screens.graph import GraphScreen

        self.app.push_screen(GraphScreen(list(self.board.tasks.values())))

    def action_toggle_flips(self) -> None:
        self.stream.toggle_flips()

    def action_toggle_preview(self) -> None:
        self.preview.display = not self.preview.display
        self.refresh_preview()

    def refresh_preview(self) -> None:
        """Capture the selected session's pane, if the preview is showing."""
        name = self.sessions_table.selected
        if name is not None and self.preview.display and self.app.screen is self \
                and self._capturing is None:
            self._capturing = name  # one capture at a time; a slow tmux never piles up
            self.jobs.capture(name)
