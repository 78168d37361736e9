"""The needs-you strip: what waits on the human, one or two lines each (a question wraps
before it is cut), above everything else.

Hidden while nothing waits. `enter` (or a click) on a line asks the screen to take you
there: the session's tmux pane, or the blocked card on the board. On a conversation the
loop guard holds, `r` releases it and `x` ends it (as `bullpen note release|end`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from tui.dashboard.format import wrap_title
from tui.dashboard.needs import Need, NeedKind

MAX_ROWS = 4  # more scroll inside the strip (2 in a terminal under SHORT rows)
SHORT = 30
LINES_EACH = 2  # a need's text (a question) wraps to a second line before it is cut
INDENT = 2 + 11 + 1  # the marker, the kind's label, a space
CHROME = 4  # the strip's border and padding, left and right
KIND_LABELS = {NeedKind.COORDINATOR: ("coordinator", "bold white on red"),
               NeedKind.UNREADABLE: ("unreadable", "bold white on red"),
               NeedKind.INPUT: ("needs input", "bold black on yellow"),
               NeedKind.BUDGET: ("budget", "bold black on yellow"),
               NeedKind.LOOP: ("loop", "bold white on magenta"),
               NeedKind.HELD: ("held note", "bold yellow"),
               NeedKind.BLOCKED: ("blocked", "bold red"),
               NeedKind.ALERT: ("alert", "bold magenta")}


class NeedsYou(Widget, can_focus=True):
    """A short list of `Need`s with a cursor."""

    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("enter", "choose", "Go there", id="needs.choose"),
        Binding("r", "release", "Release loop", id="needs.release"),
        Binding("x", "end", "End loop", id="needs.end"),
        Binding("a", "answer", "Answer", id="needs.answer"),
    ]

    cursor: reactive[int] = reactive(0)

    @dataclass
    class Chosen(Message):
        """Take the human to this need (its pane, or its card)."""

        need: Need

    @dataclass
    class ReleaseRequested(Message):
        """Let this held chain's notes through, once (board/loops.py)."""

        chain: int

    @dataclass
    class EndRequested(Message):
        """End this held chain: drop its held notes, tell their senders."""

        chain: int

    @dataclass
    class AnswerRequested(Message):
        """Show this session's question with its choices (screens/answer.py)."""

        session: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.needs: list[Need] = []
        self.display = False

    def show(self, needs: list[Need]) -> None:
        """Show these needs (hidden when there are none); nothing is redrawn, or laid out
        again, unless they changed (a relayout costs ~100 ms with 50 sessions)."""
        if needs == self.needs and self.display == bool(needs):
            return
        current = self.needs[self.cursor].key if self.cursor < len(self.needs) else None
        self.needs = needs
        keys = [need.key for need in needs]
        self.cursor = keys.index(current) if current in keys else min(self.cursor,
                                                                      max(len(needs) - 1, 0))
        if self.display != bool(needs):
            self.display = bool(needs)
        self._fit_height()
        self.border_title = f"needs you {len(needs)}"
        more = f" · {self.rows} of {len(needs)} shown" if len(needs) > self.rows else ""
        loop = " · r release · x end" if any(need.chain is not None for need in needs) else ""
        self.border_subtitle = f"g next · enter go{loop}{more}" if needs else ""
        self.refresh()

    def next(self) -> None:
        """Focus the strip on the next need (wrapping round)."""
        if self.needs:
            self.cursor = (self.cursor + 1) % len(self.needs) if self.has_focus else self.cursor
            self.focus()

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self.needs) - 1)) if self.needs else 0

    def watch_cursor(self) -> None:
        if self.is_mounted:
            self._fit_height()
        self.refresh()

    def on_resize(self) -> None:
        self._fit_height()

    def _fit_height(self) -> None:
        """As tall as the needs in view take, each on one or two lines (a layout only when
        that changes: it costs ~100 ms with 50 sessions)."""
        top = self._top
        height = sum(len(self._text_lines(need)) for need in self.needs[top:top + self.rows])
        height += 2
        if self.styles.height is None or self.styles.height.value != height:
            self.styles.height = height

    def _text_lines(self, need: Need) -> list[str]:
        """The need's text over at most two lines of the strip's width (the strip spans
        the screen, so its width is known before it is first shown)."""
        return list(wrap_title(need.text, max(self.app.size.width - CHROME - INDENT, 8),
                               LINES_EACH))

    def action_cursor(self, step: int) -> None:
        self.cursor += step

    def action_choose(self) -> None:
        if self.needs:
            self.post_message(self.Chosen(self.needs[self.cursor]))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("release", "end"):  # only on a held conversation
            return self._chain() is not None
        if action == "answer":  # only on a session's question
            return self._asking() is not None
        return True

    def _asking(self) -> str | None:
        need = self.needs[self.cursor] if self.cursor < len(self.needs) else None
        return need.session if need is not None and need.kind == NeedKind.INPUT else None

    def action_answer(self) -> None:
        if (session := self._asking()) is not None:
            self.post_message(self.AnswerRequested(session))

    def _chain(self) -> int | None:
        return self.needs[self.cursor].chain if self.cursor < len(self.needs) else None

    def action_release(self) -> None:
        if (chain := self._chain()) is not None:
            self.post_message(self.ReleaseRequested(chain))

    def action_end(self) -> None:
        if (chain := self._chain()) is not None:
            self.post_message(self.EndRequested(chain))

    def on_click(self, event: events.Click) -> None:
        row = self._top + event.y - 1
        if 0 <= row < len(self.needs):
            self.cursor = row
            self.action_choose()

    @property
    def rows(self) -> int:
        """How many needs are visible at once."""
        return 2 if self.app.size.height < SHORT else MAX_ROWS

    @property
    def _top(self) -> int:
        return max(self.cursor - self.rows + 1, 0)

    def render(self) -> Text:
        lines = Text(no_wrap=True, overflow="ellipsis")
        top = self._top
        for index, need in enumerate(self.needs[top:top + self.rows], start=top):
            label, style = KIND_LABELS.get(need.kind, (need.kind, "bold"))
            if index > top:
                lines.append("\n")
            marker = "▸ " if index == self.cursor and self.has_focus else "  "
            lines.append(marker, style="bold")
            lines.append(f"{label:<11}", style=style)
            lines.append(" " + "\n".ljust(INDENT + 1).join(self._text_lines(need)))
        return lines

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
