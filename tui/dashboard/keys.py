"""Every key of the dashboard, panel by panel, read from the bindings themselves.

The app imports this (nothing below the app may: it imports every panel), and the help
screen (`?`), given them by the app, shows these rows and docs/dashboard.md carries them as its key
table (tests/ui/test_dashboard_keys.py keeps the two in step): a key added to a widget's
BINDINGS shows in both, and a key taken away leaves both.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding
from textual.dom import DOMNode

from tui.dashboard.commands import COMMANDS
from tui.dashboard.prompt import PromptScreen
from tui.dashboard.screens.answer import AnswerScreen
from tui.dashboard.screens.confirm import ConfirmScreen
from tui.dashboard.screens.graph import GraphScreen
from tui.dashboard.screens.land import LandScreen
from tui.dashboard.screens.main import MainScreen
from tui.dashboard.screens.session_detail import SessionDetailScreen
from tui.dashboard.screens.task_detail import TaskDetailScreen
from tui.dashboard.widgets.board import Board
from tui.dashboard.widgets.card_list import CardList
from tui.dashboard.widgets.needs_you import NeedsYou
from tui.dashboard.widgets.note_stream import NoteStream
from tui.dashboard.widgets.sessions_table import SessionsTable
from tui.dashboard.widgets.watcher_table import WatcherTable

KEY_NAMES = {"up": "↑", "down": "↓", "left": "←", "right": "→", "shift+left": "shift+←",
             "shift+right": "shift+→", "slash": "/", "question_mark": "?", "escape": "esc",
             "pageup": "pgup", "pagedown": "pgdn"}


@dataclass(frozen=True)
class KeyRow:
    """One binding as a person reads it: where, which keys, what it does."""

    panel: str
    keys: str
    does: str


def key_names(keys: str) -> str:
    """'shift+left,H' → 'shift+← H'."""
    return " ".join(KEY_NAMES.get(key, key) for key in keys.split(","))


def _panels(app: type[DOMNode]) -> tuple[tuple[str, tuple[type[DOMNode], ...]], ...]:
    return (("anywhere", (MainScreen, app)), ("needs you", (NeedsYou,)),
            ("sessions", (SessionsTable,)), ("board", (CardList, Board)),
            ("notes", (NoteStream,)), ("watcher", (WatcherTable,)),
            ("session detail", (SessionDetailScreen,)), ("task detail", (TaskDetailScreen,)),
            ("plan graph", (GraphScreen,)), ("form", (PromptScreen,)),
            ("question", (ConfirmScreen,)), ("agent's question", (AnswerScreen,)),
            ("landing", (LandScreen,)))


def own_bindings(widget: type[DOMNode]) -> list[Binding]:
    """The bindings bullpen declares for `widget` (its own classes' BINDINGS, the nearest
    first), not those Textual's base classes bring."""
    found: list[Binding] = []
    seen: set[str] = set()
    for cls in widget.__mro__:
        if not cls.__module__.startswith("tui.") or "BINDINGS" not in vars(cls):
            continue
        for binding in vars(cls)["BINDINGS"]:
            if isinstance(binding, Binding) and binding.key not in seen:
                seen.add(binding.key)
                found.append(binding)
    return found


def _does(binding: Binding) -> str:
    command = next((command for command in COMMANDS if command.action == binding.action
                    and command.keys == binding.key), None)
    if command is not None:
        return command.help
    return binding.tooltip or binding.description


EXTRA = (KeyRow("anywhere", "ctrl+p", "The command palette: every action, with its key"),
         KeyRow("form", "enter", "Submit, from any field (a refused form stays open, the"
                " reason under its field)"),
         KeyRow("form", "→", "Take the suggested session name"))


def key_rows(app: type[DOMNode]) -> list[KeyRow]:
    """Every key, panel by panel, in the order the panels and their bindings come (`app`:
    the dashboard's App class, whose keys work anywhere)."""
    rows: list[KeyRow] = []
    for panel, widgets in _panels(app):
        for widget in widgets:
            rows.extend(KeyRow(panel, key_names(binding.key), _does(binding))
                        for binding in own_bindings(widget))
        rows.extend(row for row in EXTRA if row.panel == panel)
    return rows


def markdown_table(app: type[DOMNode]) -> str:
    """The key table of docs/dashboard.md."""
    lines = ["| Where | Keys | What it does |", "|---|---|---|"]
    lines += [f"| {row.panel} | `{row.keys}` | {row.does} |" for row in key_rows(app)]
    return "\n".join(lines)
