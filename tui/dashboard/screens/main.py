"""The dashboard's one screen: sessions and preview, board, note stream and watcher."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Footer

from board import tasks
from board.errors import BullpenError
from board.home import DB_NAME
from tui.dashboard.actions import SessionActions
from tui.dashboard.commands import bindings_for
from tui.dashboard.feed import RoomDelta
from tui.dashboard.messages import ChangedFilesCounted, PreviewCaptured, RoomUpdated, TailFailed
from tui.dashboard.screens.card_actions import BOARD_ACTIONS, CardActions
from tui.dashboard.screens.session_actions import SESSION_ACTIONS, SessionActionsMixin
from tui.dashboard.tail import EventTail
from tui.dashboard.widgets.board import Board
from tui.dashboard.widgets.card_list import CardList
from tui.dashboard.widgets.note_stream import NoteStream
from tui.dashboard.widgets.preview import Preview
from tui.dashboard.widgets.sessions_table import SessionsTable
from tui.dashboard.widgets.watcher_table import WatcherTable
from tui.dashboard.writer import StoreWriter

PREVIEW_SECONDS = 1.0
COORDINATOR_CHECK_SECONDS = 5.0  # closing the dashboard stops nothing; it revives, too
PANELS = {"sessions": "#sessions", "board": "#column-ready", "stream": "#stream",
          "watcher": "#watcher"}


class MainScreen(CardActions, SessionActionsMixin, Screen[None]):
    """Composes the panels, applies store deltas, and runs blocking work in threads."""

    BINDINGS = [
        *bindings_for("global"),
        *(Binding(str(number), f"panel('{panel}')", panel.title(), show=False)
          for number, panel in enumerate(PANELS, start=1)),
    ]

    def __init__(self, home: Path, actions: SessionActions) -> None:
        super().__init__()
        self.home = home
        self.actions = actions
        self.writer: StoreWriter | None = None
        self.tail: EventTail | None = None
        self.applied_event = 0  # the newest event id shown (tests and the bench wait on it)
        self.loaded = False
        self._capturing = False

    def compose(self) -> ComposeResult:
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
        self.tail = EventTail(self.home / DB_NAME,
                              on_delta=lambda delta: self.post_message(RoomUpdated(delta)),
                              on_error=lambda error: self.post_message(TailFailed(str(error))))
        self.tail.start()
        self.set_interval(PREVIEW_SECONDS, self.refresh_preview)
        self.set_interval(COORDINATOR_CHECK_SECONDS, self.keep_coordinator)
        self.query_one("#column-ready", CardList).focus()

    def on_unmount(self) -> None:
        if self.tail is not None:
            self.tail.stop()
        if self.writer is not None:
            self.writer.close()

    def on_room_updated(self, message: RoomUpdated) -> None:
        delta: RoomDelta = message.delta
        if delta.tasks or delta.removed_tasks or delta.initial:
            self.board.apply(delta.tasks, delta.removed_tasks, initial=delta.initial)
        if delta.stream:
            self.stream.add(delta.stream)
        if delta.sessions is not None:
            self.sessions_table.show(delta.sessions)
        if delta.alerts is not None:
            self.query_one(WatcherTable).show(delta.alerts)
        changed = ([row.session.name for row in delta.sessions or ()] if delta.initial
                   else sorted(delta.changed_sessions))
        if changed:
            self.count_changed(changed)
        self.applied_event = max(self.applied_event, delta.last_event)
        if delta.initial:
            self.loaded = True
            self.refresh_preview()
        if delta.tasks or delta.removed_tasks or delta.initial:
            self.refresh_bindings()  # the highlighted card may have come or gone

    def on_tail_failed(self, message: TailFailed) -> None:
        self.notify(f"reading the store failed: {message.error}", severity="error")

    def on_preview_captured(self, message: PreviewCaptured) -> None:
        self.preview.show(message.session, message.text)

    def on_changed_files_counted(self, message: ChangedFilesCounted) -> None:
        self.sessions_table.show_changed(message.counts)

    @on(DataTable.RowHighlighted, "#sessions")
    def _session_highlighted(self) -> None:
        self.refresh_preview()
        self.refresh_bindings()

    @on(DataTable.RowSelected, "#sessions")
    def _session_selected(self) -> None:
        self.action_focus_session()

    def on_card_list_highlighted(self) -> None:
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Card actions need a card, session actions a session (shown dimmed otherwise)."""
        if action in BOARD_ACTIONS and self.is_mounted and self.board.current_task is None:
            return None
        if action in SESSION_ACTIONS and self.is_mounted and \
                self.sessions_table.selected is None:
            return None
        return True

    def action_panel(self, panel: str) -> None:
        self.query_one(PANELS[panel]).focus()

    def action_help(self) -> None:
        from tui.dashboard.screens.help import HelpScreen

        self.app.push_screen(HelpScreen())

    def refresh_preview(self) -> None:
        """Capture the selected session's pane, if the preview is showing."""
        name = self.sessions_table.selected
        if name is not None and self.preview.display and self.app.screen is self \
                and not self._capturing:
            self._capturing = True  # one capture at a time; a slow tmux never piles up threads
            self.capture_preview(name)

    # Thread workers: the only places that block (SQLite writes, tmux, git).

    @work(thread=True, group="store")
    def write_store(self, function: Callable[..., Any], *args: Any, follow: int | None = None,
                    **kwargs: Any) -> None:
        """Call a board function as the operator; refusals become notifications."""
        assert self.writer is not None and self.tail is not None
        try:
            result = self.writer.call(function, *args, **kwargs)
        except BullpenError as error:
            self.app.call_from_thread(self.notify, str(error), title="refused",
                                      severity="error")
            return
        task = result[0] if isinstance(result, tuple) else result
        if follow is not None and getattr(task, "id", None) == follow:
            self.app.call_from_thread(self.board.follow, follow, task.status)
        self.tail.poke()

    @work(thread=True, group="store")
    def load_details(self, task_id: int) -> None:
        """Read one task with its links and comments, then show it."""
        assert self.writer is not None
        try:
            task = self.writer.read(tasks.get, task_id)
        except BullpenError as error:
            self.app.call_from_thread(self.notify, str(error), severity="error")
            return
        self.app.call_from_thread(self.show_details, task)

    @work(thread=True, group="session")
    def run_session_action(self, verb: str, name: str, done: str | None = None,
                           **kwargs: Any) -> None:
        """Call `actions.<verb>(name, ...)`; any failure becomes a notification."""
        try:
            getattr(self.actions, verb)(name, **kwargs)
        except Exception as error:  # the runtime's errors (tmux, git) must not kill the view
            self.app.call_from_thread(self.notify, f"{verb} {name}: {error}",
                                      severity="error")
            return
        if done:
            self.app.call_from_thread(self.notify, done)

    @work(thread=True, group="preview")
    def capture_preview(self, name: str) -> None:
        try:
            text = self.actions.capture(name)
        except Exception as error:  # no pane yet, tmux gone: say so in the preview itself
            text = f"(no pane to show: {error})"
        finally:
            self._capturing = False
        self.post_message(PreviewCaptured(name, text))

    @work(thread=True, exclusive=True, group="coordinator")
    def keep_coordinator(self) -> None:
        """Restart the room's coordinator if it died (deliveries and pings stop without it)."""
        try:
            restarted = self.actions.keep_coordinator()
        except Exception as error:  # tmux gone: the sessions panel shows it already
            self.app.call_from_thread(self.notify, f"coordinator: {error}", severity="error")
            return
        if restarted:
            self.app.call_from_thread(self.notify, "the coordinator had stopped; restarted it")

    @work(thread=True, group="git")
    def count_changed(self, names: list[str]) -> None:
        counts: dict[str, int | None] = {}
        for name in names:
            try:
                counts[name] = self.actions.changed_files(name)
            except Exception:  # a missing worktree counts as unknown
                counts[name] = None
        self.post_message(ChangedFilesCounted(counts))
