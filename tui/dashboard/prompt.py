"""A small modal form: a title and a few text fields; enter submits (from any field), tab
moves to the next field, escape cancels."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label


@dataclass(frozen=True)
class Field:
    """One input of a prompt."""

    name: str
    label: str
    value: str = ""
    placeholder: str = ""


class PromptScreen(ModalScreen[dict[str, str] | None]):
    """Asks for some text; dismisses with {field name: value}, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, fields: list[Field], focus: str | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.fields = fields
        self.first = focus

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt"):
            yield Label(self.title_text, id="prompt-title")
            for field in self.fields:
                yield Label(field.label, classes="prompt-label")
                yield Input(field.value, placeholder=field.placeholder, id=f"field-{field.name}")
            yield Label("enter: OK   tab: next field   esc: cancel", classes="prompt-hint")

    def on_mount(self) -> None:
        if self.first is not None:
            self.query_one(f"#field-{self.first}", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss({field.name: self.query_one(f"#field-{field.name}", Input).value
                      for field in self.fields})

    def action_cancel(self) -> None:
        self.dismiss(None)
