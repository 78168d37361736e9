"""A yes/no question in a modal: `y` (or enter) says yes, `n` or escape says no."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label


class ConfirmScreen(ModalScreen[bool]):
    """Asks `question`; dismisses with True for yes, False for no."""

    BINDINGS = [Binding("y,enter", "answer(True)", "Yes"),
                Binding("n,escape", "answer(False)", "No")]

    def __init__(self, question: str, detail: str = "", yes: str = "yes") -> None:
        super().__init__()
        self.question = question
        self.detail = detail
        self.yes = yes

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Label(self.question, id="confirm-question")
            if self.detail:
                yield Label(self.detail, id="confirm-detail")
            yield Label(f"y / enter: {self.yes}   n / esc: stay", classes="prompt-hint")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
