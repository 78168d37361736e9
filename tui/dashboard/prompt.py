"""A small modal form: a title and a few text fields; enter submits (from any field), tab
moves to the next field, escape cancels.

A form that writes the store (`submit`) stays open until the write is done: refused, it
shows the reason under the field it is about, with everything typed still there. Session
names complete as they are typed (`→` takes the suggestion). `open_form` returns only
once the form is mounted with its field focused, so keys typed fast after the key that
opened it land in that field, in order, not on the screen beneath.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import Input, Label

Answer = dict[str, str]


@dataclass(frozen=True)
class Field:
    """One input of a prompt; `names` are offered as completions, `check` refuses a value
    before anything is sent (it returns the reason, or None)."""

    name: str
    label: str
    value: str = ""
    placeholder: str = ""
    names: Sequence[str] = ()
    check: Callable[[str], str | None] | None = field(default=None, compare=False)


class PromptScreen(ModalScreen[Answer | None]):
    """Asks for some text; dismisses with {field name: value}, or None when cancelled.
    With `submit`, enter hands the answer to it and the form waits for `accept` or
    `refuse` (the store's answer) instead of closing at once."""

    # tab with priority: the app moves the focus as it reads the key, before it hands
    # the next keys on (a tab bubbling up from the field came after the keys behind it).
    BINDINGS = [Binding("escape", "cancel", "Cancel"),
                Binding("tab", "app.focus_next", "Next field", show=False, priority=True),
                Binding("shift+tab", "app.focus_previous", "Previous field", show=False,
                        priority=True)]
    AUTO_FOCUS = ".-first"  # the field to type in, focused as the form is composed

    def __init__(self, title: str, fields: list[Field], focus: str | None = None,
                 submit: Callable[[Answer], object] | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.fields = fields
        self.first = focus or fields[0].name
        self.submit = submit
        self.pending = False  # submitted; waiting for the store's answer

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt"):
            yield Label(self.title_text, id="prompt-title")
            for item in self.fields:
                yield Label(item.label, classes="prompt-label")
                suggester = SuggestFromList(item.names) if item.names else None
                yield Input(item.value, placeholder=item.placeholder, id=f"field-{item.name}",
                            suggester=suggester,
                            classes="-first" if item.name == self.first else "")
                yield Label("", id=f"error-{item.name}", classes="prompt-error")
            yield Label("", id="error-form", classes="prompt-error")
            yield Label("enter: OK   tab: next field   esc: cancel", classes="prompt-hint")

    @property
    def answer(self) -> Answer:
        """What is typed in each field now."""
        return {item.name: self.query_one(f"#field-{item.name}", Input).value
                for item in self.fields}

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.pending:
            return
        answer = self.answer
        self._clear_errors()
        for item in self.fields:
            reason = item.check(answer[item.name]) if item.check is not None else None
            if reason is not None:
                self._show_error(item.name, reason)
                return
        if self.submit is None:
            self.dismiss(answer)
            return
        self.pending = True
        self._show_error(None, "…", mark="")
        self.submit(answer)

    def accept(self) -> None:
        """The store took it: close the form."""
        self.pending = False
        self.dismiss(self.answer)

    def refuse(self, reason: str) -> None:
        """The store refused it: keep the form and what is typed, say why under the field
        the reason names (the one whose value it quotes), else under the form."""
        self.pending = False
        self._clear_errors()
        answer = self.answer
        named = next((item.name for item in self.fields if answer[item.name].strip()
                      and repr(answer[item.name].strip()) in reason), None)
        self._show_error(named, reason)

    def _show_error(self, name: str | None, reason: str, mark: str = "✗ ") -> None:
        label = self.query_one(f"#error-{name or 'form'}", Label)
        label.update(f"{mark}{reason}")
        label.add_class("-shown")
        if name is not None:
            self.query_one(f"#field-{name}", Input).focus()

    def _clear_errors(self) -> None:
        for label in self.query(".prompt-error").results(Label):
            label.update("")
            label.remove_class("-shown")

    def action_cancel(self) -> None:
        self.dismiss(None)


async def open_form(app: App, form: PromptScreen,
                    then: Callable[[Answer], object] | None = None) -> None:
    """Show `form` and return once it is mounted and its field has the focus (a key
    handler that awaits this holds the keys after it back until then). `then` gets the
    answer of a form without `submit` (not called when cancelled)."""
    def answered(answer: Answer | None) -> None:
        if answer is not None and then is not None:
            then(answer)
    await app.push_screen(form, answered if form.submit is None else None)
