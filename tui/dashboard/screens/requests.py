"""What the main screen does with its widgets' requests: one job each, never a wait.

The board's requests call one board function each (as the CLI's task commands do), the
sessions table's call the runtime's verbs; both through `Jobs`, the only place that
blocks. A mixin of MainScreen: Textual finds these `on_…` handlers on any class of the
screen's MRO.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.screen import Screen

from board import columns, loops, tasks
from board.vocabulary import TaskStatus
from tui.dashboard.actions import SessionActions
from tui.dashboard.jobs import Jobs
from tui.dashboard.screens.confirm import ConfirmScreen
from tui.dashboard.widgets.board import Board
from tui.dashboard.widgets.needs_you import NeedsYou
from tui.dashboard.widgets.sessions_table import SessionsTable


class WidgetRequests(Screen[None]):
    """The `…Requested` handlers of the board and the sessions table."""

    jobs: Jobs
    actions: SessionActions

    def _ask_first(self, question: str, detail: str, yes: str,
                   then: Callable[[], object]) -> None:
        """Do `then` only once the operator says yes (what cannot be undone by a key)."""
        def answered(agreed: bool | None) -> None:
            if agreed:
                then()
        self.app.push_screen(ConfirmScreen(question, detail, yes=yes), answered)

    # Requests from the board: one board function each, as the CLI's task commands.

    def on_board_move_requested(self, message: Board.MoveRequested) -> None:
        self.jobs.write_store(columns.move_by, message.task_id, message.step,
                              follow=message.task_id)

    def on_board_archive_requested(self, message: Board.ArchiveRequested) -> None:
        def archive() -> None:
            self.jobs.write_store(tasks.move, message.task_id, TaskStatus.ARCHIVED,
                                  follow=message.task_id)
        if not message.ask:
            archive()
            return
        self._ask_first(f"Archive task #{message.task_id}?",
                        "It leaves the board; bullpen task move ID ready brings it back.\n"
                        "Landing a session's work is L on the sessions table.",
                        "archive", archive)

    def on_board_done_requested(self, message: Board.DoneRequested) -> None:
        self.jobs.write_store(tasks.done, message.task_id, message.summary,
                              follow=message.task_id, form=message.form)

    def on_board_block_requested(self, message: Board.BlockRequested) -> None:
        self.jobs.write_store(tasks.block, message.task_id, message.reason,
                              follow=message.task_id, form=message.form)

    def on_board_comment_requested(self, message: Board.CommentRequested) -> None:
        self.jobs.write_store(tasks.comment, message.task_id, message.text, form=message.form)

    def on_board_assign_requested(self, message: Board.AssignRequested) -> None:
        self.jobs.write_store(tasks.assign, message.task_id, message.assignee,
                              form=message.form)

    def on_board_add_requested(self, message: Board.AddRequested) -> None:
        self.jobs.write_store(tasks.add, message.title, body=message.body,
                              assignee=message.assignee, after=message.after,
                              form=message.form)

    def on_board_details_requested(self, message: Board.DetailsRequested) -> None:
        self.jobs.load_task(message.task_id)

    # Requests from the needs-you strip: the operator's answer to a held conversation.

    def on_needs_you_release_requested(self, message: NeedsYou.ReleaseRequested) -> None:
        self.jobs.write_store(loops.release, message.chain)

    def on_needs_you_end_requested(self, message: NeedsYou.EndRequested) -> None:
        self._ask_first(f"End loop chain {message.chain}?",
                        "Its held notes are dropped, their senders told, and it takes no"
                        " more notes.\nr releases it instead (its held notes go through).",
                        "end it", lambda: self.jobs.write_store(loops.end, message.chain))

    # Requests from the sessions table: the runtime's verbs.

    def on_sessions_table_focus_requested(self, message: SessionsTable.FocusRequested) -> None:
        self.jobs.run_runtime(f"focus {message.name}", self.actions.focus, message.name)

    def on_sessions_table_zoom_requested(self, message: SessionsTable.ZoomRequested) -> None:
        self.jobs.run_runtime(f"zoom {message.name}", self.actions.zoom, message.name)

    def on_sessions_table_stop_requested(self, message: SessionsTable.StopRequested) -> None:
        # One key ends an agent, perhaps mid-turn: ask first.
        self._ask_first(f"Stop session {message.name}?",
                        "Its agent ends now; its worktree and branch stay.\n"
                        "r restarts it.", "stop it",
                        lambda: self.jobs.run_runtime(f"stop {message.name}",
                                                      self.actions.stop, message.name,
                                                      done=f"stopped {message.name}"))

    def on_sessions_table_remove_requested(self,
                                           message: SessionsTable.RemoveRequested) -> None:
        # Ends the agent and removes its worktree: ask first (the store refuses dirty work).
        self._ask_first(f"Remove session {message.name}?",
                        "Its agent ends, bullpen forgets it and its worktree goes; its"
                        f" branch stays.\nUncommitted work is refused: bullpen rm"
                        f" {message.name} --force.", "remove it",
                        lambda: self.jobs.run_runtime(f"remove {message.name}",
                                                      self.actions.rm, message.name,
                                                      done=f"removed {message.name}"))

    def on_sessions_table_restart_requested(self,
                                            message: SessionsTable.RestartRequested) -> None:
        self.jobs.run_runtime(f"restart {message.name}", self.actions.restart, message.name,
                              done=f"restarted {message.name}")

    def on_sessions_table_details_requested(self,
                                            message: SessionsTable.DetailsRequested) -> None:
        self.jobs.load_session(message.name)

    def on_sessions_table_spawn_requested(self, message: SessionsTable.SpawnRequested) -> None:
        self.jobs.run_runtime(f"spawn {message.name}", self.actions.spawn, message.name,
                              agent=message.agent, task=message.task, deliver=message.deliver,
                              done=f"spawned {message.name}")
