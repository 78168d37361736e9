"""A session's question with its context and choices, one key per choice (`1`–`9`).

Opened with `a` on a needs-you line of a session that asks (`NeedsYou.AnswerRequested`).
The question is read from the pane when the screen opens (`RoomControl.questions`, in a
thread worker), and the chosen number goes back with the question's id: the room types
it only while that same question is still on the pane (`workers.room.answers`), so a
question answered or replaced meanwhile is refused, never answered by a stale key.
Escape closes without answering.
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

MAX_CONTEXT = 12  # lines of the dialog shown above the question


class AnswerScreen(ModalScreen[str | None]):
    """Shows `question` (a `workers.room.answers.Question`); dismisses with the chosen
    choice's number as text, or None."""

    BINDINGS = [Binding("escape", "dismiss_none", "Close without answering")]

    def __init__(self, question: Any) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        asked = self.question
        with Vertical(id="confirm"):
            yield Label(f"{escape(asked.session)} asks [dim]({asked.id})[/]",
                        id="answer-title")
            for line in [line for line in asked.context if line != asked.question][
                    :MAX_CONTEXT]:
                yield Label(escape(line), classes="answer-context")
            yield Label(f"[b]{escape(asked.question)}[/]", id="confirm-question")
            for index, choice in enumerate(asked.choices):
                mark = "❯" if index == asked.selected else " "
                key = str(choice.number) if choice.number <= 9 else " "
                yield Label(f"{mark} [b]{key}[/]  {escape(choice.label)}",
                            classes="answer-choice")
            hint = ("1–9: answer (typed only if this question is still asked)   esc: close"
                    if asked.choices else "bullpen cannot type this answer: answer it in the"
                    " pane (enter on the needs-you line)   esc: close")
            yield Label(hint, classes="prompt-hint")

    def on_key(self, event: events.Key) -> None:
        numbers = {str(choice.number) for choice in self.question.choices
                   if choice.number <= 9}
        if event.character in numbers:
            event.stop()
            self.dismiss(event.character)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


def ask_and_answer(screen: Any, jobs: Any, actions: Any, session: str) -> None:
    """Read `session`'s question (a thread worker), show it, and send the chosen number
    back with the question's id through `jobs` (a refusal is the screen's to report)."""
    def read() -> None:
        asked = next((item for item in actions.questions() if item.session == session), None)
        screen.app.call_from_thread(show, asked)

    def show(asked: Any) -> None:
        if asked is None:
            screen.notify(f"{session} asks nothing now", title="no question")
            return

        def chosen(number: str | None) -> None:
            if number is not None:
                label = next(item.label for item in asked.choices
                             if str(item.number) == number)
                jobs.run_runtime(f"answer {session}", actions.answer, session, number,
                                 asked.id, done=f"answered {session}: {number} {label}")
        screen.app.push_screen(AnswerScreen(asked), chosen)

    screen.run_worker(read, thread=True, group="answer",
                      description=f"read {session}'s question", exit_on_error=False)
