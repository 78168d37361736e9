"""A session's detail (`enter` on a session): its task, status and why (the question it
asks now, read from its pane: the dialog's lines and numbered choices), branch and
changed files, its diff since its base (what `bullpen diff` shows, syntax-coloured and
scrollable), its inbox and its notebook — private entries marked, for the operator — and
the conflict radar's predictions about it (the other side, files, both sides' lines)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Static, TabbedContent, TabPane

from tui.dashboard.code_marks import code_mark
from tui.dashboard.detail import SessionDetail
from tui.dashboard.format import age, agent_label, clock, delivery_text, status_text
from tui.dashboard.screens.answer import MAX_CONTEXT
from tui.dashboard.screens.reading import ReadingScreen


class SessionDetailScreen(ReadingScreen):
    """Read-only tabs about one session, as loaded by a worker."""

    BINDINGS = [Binding("escape,q", "close", "Close"),
                Binding("o", "tab('overview')", "Overview"),
                Binding("d", "tab('diff')", "Diff"),
                Binding("i", "tab('inbox')", "Inbox"),
                Binding("b", "tab('notebook')", "Notebook")]

    def __init__(self, detail: SessionDetail, initial: str = "overview") -> None:
        super().__init__()
        self.detail = detail
        self.initial = initial

    def compose(self) -> ComposeResult:
        detail = self.detail
        with TabbedContent(initial=self.initial, id="session-detail"):
            with TabPane("Overview", id="overview"), VerticalScroll():
                yield Static(self._overview(), id="overview-body")
            with TabPane(f"Diff ({len(detail.changed)} uncommitted)", id="diff"), \
                    VerticalScroll(id="diff-view"):
                yield Static(self._diff(), id="diff-body")
            with TabPane(f"Inbox {len(detail.inbox)}", id="inbox"), VerticalScroll():
                yield Static(self._inbox())
            with TabPane(f"Notebook {len(detail.notebook)}", id="notebook"), \
                    VerticalScroll():
                yield Static(self._notebook(), id="notebook-body")
        yield Footer(compact=True)  # the modal's own keys: how to close it, its tabs

    def _overview(self) -> Group:
        detail, session = self.detail, self.detail.session
        status = Text.assemble(("status ", "bold"), status_text(session.status))
        if detail.reason:
            status.append(f": {detail.reason}", style="yellow")
        parts: list[RenderableType] = [
            Text(session.name, style="bold"),
            Text(f"{agent_label(session.agent)}"
                 f"{' ' + session.agent_version if session.agent_version else ''}"
                 f" · {session.agent or '-'}", style="dim"),
            Text(""), status, *self._question(),
            Text.assemble(("task ", "bold"), session.task or "-"),
            Text.assemble(("branch ", "bold"), session.branch or "-", ("  base ", "bold"),
                          (session.base or "-")[:12]),
            Text.assemble(("active ", "bold"), age(session.last_activity)),
            *self._code(),
            Text(""), Text("uncommitted files", style="bold")]
        if detail.problem:
            parts.append(Text(detail.problem, style="red"))
        parts += [Text(f"  {path}") for path in detail.changed] or [Text("  none", style="dim")]
        parts += [Text(""), Text("conflict radar", style="bold"), *self._radar()]
        return Group(*parts)

    def _question(self) -> list[Text]:
        """Its question as the pane shows it now: the dialog's lines, the question and its
        numbered choices (`a` on its needs-you line answers it)."""
        asked = self.detail.question
        if asked is None:
            return []
        context = [line for line in asked.context if line != asked.question][:MAX_CONTEXT]
        lines = [Text(""), Text.assemble(("question ", "bold"), (f"({asked.id})", "dim")),
                 *(Text(f"  {line}", style="dim") for line in context),
                 Text(f"  {asked.question}", style="bold")]
        for index, choice in enumerate(asked.choices):
            mark = "❯" if index == asked.selected else " "
            lines.append(Text.assemble(f"  {mark} ", (str(choice.number), "bold"),
                                       f"  {choice.label}"))
        hint = ("a on its needs-you line answers it" if asked.choices
                else "bullpen cannot type this answer: answer it in its pane")
        lines.append(Text(f"  {hint}", style="dim italic"))
        return lines

    def _code(self) -> list[Text]:
        """'code ✓ landed abc1234 · 2 ahead, 0 behind the base' (nothing when unknown)."""
        code = self.detail.code
        mark = code_mark(code)
        if code is None or mark is None:
            return []
        line = Text.assemble(("code ", "bold"), (f"{mark.symbol} {mark.text}", mark.style))
        if code.ahead is not None and code.behind is not None:
            line.append(f" · {code.ahead} ahead, {code.behind} behind the base", style="dim")
        return [line]

    def _radar(self) -> list[Text]:
        """Each predicted conflict: the other side, since when, files and both sides' lines."""
        me = self.detail.session.name
        if not self.detail.conflicts:
            return [Text("  merges cleanly with every session and the base", style="dim")]
        lines: list[Text] = []
        for conflict in self.detail.conflicts:
            other = conflict.other(me)
            lines.append(Text.assemble(("  ⚠ ", "bold red"), (other, "bold"),
                                       (f" since {clock(conflict.since)[:5]}", "dim")))
            for item in conflict.files:
                mine = _ranges(conflict.lines_of(me, item.path))
                theirs = _ranges(conflict.lines_of(other, item.path))
                lines.append(Text(f"    {item.path}: yours {mine}, theirs {theirs}"))
        return lines

    def _diff(self) -> RenderableType:
        if self.detail.problem:
            return Text(f"no diff: {self.detail.problem}", style="red")
        if not self.detail.diff:
            return Text("no changes since its base", style="dim")
        return Syntax(self.detail.diff, "diff", theme="ansi_dark", word_wrap=False)

    def _inbox(self) -> RenderableType:
        if not self.detail.inbox:
            return Text("no notes yet", style="dim")
        lines: list[RenderableType] = []
        for note, delivery in self.detail.inbox:
            head = Text.assemble((clock(note.created_at)[:5] + " ", "dim"),
                                 (note.sender, "bold cyan"), (f" #{note.id}", "bold"),
                                 (f" {note.kind}" if note.kind != "note" else "", "magenta"),
                                 (f" re #{note.reply_to}" if note.reply_to else "", "italic"),
                                 (" · ", "dim"))
            head.append_text(delivery_text([delivery]))
            lines += [head, _indented(note.body)]
        return Group(*lines)

    def _notebook(self) -> RenderableType:
        if not self.detail.notebook:
            return Text("nothing written yet", style="dim")
        lines: list[RenderableType] = []
        for entry in self.detail.notebook:
            head = Text(clock(entry.created_at)[:5], style="dim")
            if entry.private:
                head.append(" [private] only you and its author see this",
                            style="bold reverse yellow")
            lines += [head, _indented(entry.body)]
        return Group(*lines)

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def action_close(self) -> None:
        self.dismiss(None)


def _indented(body: str) -> Padding:
    """A body under its header: every line indented, also those wrapping on screen."""
    return Padding(Text(body.strip()), (0, 0, 0, 2))


def _ranges(ranges: tuple[tuple[int, int], ...]) -> str:
    return ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in ranges) or "whole file"
