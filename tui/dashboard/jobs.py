"""The dashboard's thread workers: the only places that block (SQLite writes, tmux, git).

Each job calls one headless function (a board function through the `StoreWriter`, or a
`SessionActions` verb), then posts its result as a message to the screen; no job touches
a widget. Every job runs with `exit_on_error=False`, so its failure arrives at the
screen's one `on_worker_state_changed` handler instead of closing the app.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from board import tasks
from board.errors import BadInput
from tui.dashboard.actions import RUNTIME_ERRORS, SessionActions
from tui.dashboard.detail import load_detail
from tui.dashboard.landing import LandOutcome, LandProgress
from tui.dashboard.messages import (
    ChangedFilesCounted,
    CodeFlowsLoaded,
    CoordinatorChecked,
    LandFinished,
    LandingPrepared,
    PreviewCaptured,
    RuntimeDone,
    SessionDetailLoaded,
    StoreWritten,
    TaskLoaded,
)
from tui.dashboard.prompt import PromptScreen
from tui.dashboard.tail import EventTail
from tui.dashboard.writer import StoreWriter

if TYPE_CHECKING:
    from workers.room.land_rules import RuleChange


class Jobs:
    """Starts the screen's thread workers; results come back as messages to `screen`."""

    def __init__(self, screen: Screen, writer: StoreWriter, tail: EventTail,
                 actions: SessionActions) -> None:
        self.screen = screen
        self.writer = writer
        self.tail = tail
        self.actions = actions
        # The status line shows the newest count: each job sets whatever is wanted when
        # it gets the lock, so a slow older job can never write an older count last.
        self._attention_wanted = 0
        self._attention_lock = threading.Lock()

    def _run(self, job: Callable[[], None], group: str, description: str,
             exclusive: bool = False) -> None:
        self.screen.run_worker(job, thread=True, group=group, description=description,
                               exclusive=exclusive, exit_on_error=False)

    def write_store(self, function: Callable[..., Any], *args: Any, follow: int | None = None,
                    form: PromptScreen | None = None, **kwargs: Any) -> None:
        """Call a board function as the operator; a moved card is followed by `follow`.
        The `form` it came from closes once the store took it; refused, it stays open
        and says why (no notification then: the form is where the operator looks)."""
        def job() -> None:
            try:
                result = self.writer.call(function, *args, **kwargs)
            except BadInput as error:
                if form is None:
                    raise
                self.screen.app.call_from_thread(form.refuse, str(error))
                return
            except Exception as error:  # a fault: the form must not wait for ever
                if form is not None:
                    self.screen.app.call_from_thread(form.refuse, f"not written: {error}")
                raise
            self.tail.poke()
            self.screen.post_message(StoreWritten(result, follow))
            if form is not None:
                self.screen.app.call_from_thread(form.accept)
        self._run(job, "store", function.__name__)

    def load_task(self, task_id: int) -> None:
        """Read one task with its links and comments."""
        def job() -> None:
            self.screen.post_message(TaskLoaded(self.writer.read(tasks.get, task_id)))
        self._run(job, "store", f"task {task_id}")

    def load_session(self, name: str) -> None:
        """Gather a session's detail: task, status, changed files, diff, inbox, notebook."""
        def job() -> None:
            self.screen.post_message(SessionDetailLoaded(
                load_detail(self.writer, self.actions, name)))
        self._run(job, "store", f"detail of {name}")

    def run_runtime(self, what: str, verb: Callable[..., None], *args: Any,
                    done: str | None = None, **kwargs: Any) -> None:
        """Call a session verb of the runtime (tmux, git); `done` is said when it worked."""
        def job() -> None:
            verb(*args, **kwargs)
            self.screen.post_message(RuntimeDone(done))
        self._run(job, "session", what)

    def show_attention(self, count: int) -> None:
        """Show how many things need the human in the room's tmux status line."""
        self._attention_wanted = count

        def job() -> None:
            with self._attention_lock:
                self.actions.show_attention(self._attention_wanted)
        self._run(job, "attention", "status line")

    def capture(self, name: str) -> None:
        """Capture a session's pane for the preview."""
        def job() -> None:
            self.screen.post_message(PreviewCaptured(name, self.actions.capture(name)))
        self._run(job, "preview", f"capture {name}")

    def keep_coordinator(self) -> None:
        """Restart the room's coordinator if it died (deliveries and pings stop without it),
        and say what trouble it reports (the store not writable, and why)."""
        def job() -> None:
            if self.actions.keep_coordinator():
                self.screen.post_message(
                    RuntimeDone("the coordinator had stopped; restarted it"))
            self.screen.post_message(CoordinatorChecked(self.actions.coordinator_state()))
        self._run(job, "coordinator", "coordinator", exclusive=True)

    def count_changed(self, names: list[str]) -> None:
        """Count each session's changed files (unknown when its worktree cannot be read)."""
        def job() -> None:
            counts: dict[str, int | None] = {}
            for name in names:
                try:
                    counts[name] = self.actions.changed_files(name)
                except RUNTIME_ERRORS:  # a missing or broken worktree counts as unknown
                    counts[name] = None
            self.screen.post_message(ChangedFilesCounted(counts))
        self._run(job, "git", "changed files")

    def load_code(self) -> None:
        """Read where each session's code stands (one git call per session, so one
        reading at a time: a newer request replaces a waiting one)."""
        def job() -> None:
            self.screen.post_message(CodeFlowsLoaded(self.actions.code_flows()))
        self._run(job, "code", "code flow", exclusive=True)

    def prepare_landing(self, name: str) -> None:
        """Read what landing `name` would do, to ask before doing it."""
        def job() -> None:
            self.screen.post_message(LandingPrepared(self.actions.landing_preview(name)))
        self._run(job, "land", f"land {name}")

    def land(self, progress: LandProgress, accepted: tuple[RuleChange, ...] = ()) -> None:
        """Land a session; the check's lines go to `progress`, the outcome comes as
        LandFinished (a refusal too: it is an answer, not a fault). `accepted`: the
        changes to the room's rules the operator said yes to."""
        name = progress.session

        def job() -> None:
            try:
                outcome = LandOutcome(name, True,
                                      self.actions.land(name, progress.add, accepted))
            except RUNTIME_ERRORS as error:
                outcome = LandOutcome(name, False, str(error))
            progress.outcome = outcome
            self.tail.poke()
            self.screen.post_message(LandFinished(outcome))
        self._run(job, "land", f"land {name}")
