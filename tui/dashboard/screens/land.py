"""A landing in progress (`L` on a session, after its question): the check's progress
and newest lines while it runs, then the outcome — what landed, or the one-line reason
it was refused. The landing itself runs in a thread worker (Jobs.land) and writes to a
`LandProgress`; this screen reads it on a timer, so the UI never waits on it."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Log, Static

from tui.dashboard.landing import LandOutcome, LandProgress

REFRESH_SECONDS = 0.2
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class LandScreen(ModalScreen[None]):
    """Shows one landing; closing it early leaves the landing running (its outcome is
    then a notification)."""

    BINDINGS = [Binding("escape,q,enter", "close", "Close")]

    def __init__(self, progress: LandProgress, base_branch: str, check: str | None) -> None:
        super().__init__()
        self.progress = progress
        self.base_branch = base_branch
        self.check = check
        self._ticks = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="land"):
            yield Label(f"Landing {self.progress.session} on {self.base_branch}",
                        id="land-title")
            yield Static(self._status(0), id="land-status")
            yield Log(max_lines=200, auto_scroll=True, id="land-log")
            yield Static("", id="land-outcome")
            yield Label("esc: close (a landing still running goes on)", id="land-hint",
                        classes="prompt-hint")

    def on_mount(self) -> None:
        self.set_interval(REFRESH_SECONDS, self.show_progress)
        if self.progress.outcome is not None:  # it ended before the screen came up
            self.finished(self.progress.outcome)

    @property
    def running(self) -> bool:
        return self.progress.outcome is None

    def show_progress(self) -> None:
        """Append the check's new lines and redraw the status line."""
        lines, count = self.progress.take()
        if lines:
            self.query_one(Log).write_lines(lines)
        if self.running:
            self._ticks += 1
            self.query_one("#land-status", Static).update(self._status(count))

    def _status(self, count: int) -> Text:
        spin = SPINNER[self._ticks % len(SPINNER)]
        what = (f"building the result and running the check: {self.check}" if self.check
                else "building the result (no land.check in bullpen.yaml)")
        return Text.assemble((f"{spin} ", "bold yellow"), what,
                             (f" — {self.progress.seconds:.0f} s, {count} line"
                              f"{'s' if count != 1 else ''} of output", "dim"))

    def finished(self, outcome: LandOutcome) -> None:
        """The landing ended: show what landed, or why it was refused."""
        self.show_progress()
        _, count = self.progress.take()
        took = Text(f"after {self.progress.seconds:.1f} s, {count} line"
                    f"{'s' if count != 1 else ''} of check output", style="dim")
        self.query_one("#land-status", Static).update(took)
        shown = (Text.assemble(("✓ ", "bold green"), (outcome.text, "green")) if outcome.landed
                 else Text.assemble(("✗ refused: ", "bold red"), outcome.text))
        self.query_one("#land-outcome", Static).update(shown)
        self.query_one("#land-hint", Label).update("esc / enter: close")

    def action_close(self) -> None:
        self.dismiss(None)
