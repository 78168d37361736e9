"""OpenAI Codex CLI (0.16x): its composer, its "Working" line and its menus, from the screen.

Seen in 0.169.0 (fixtures in tests/fixtures/screens/codex_*), on the alternate screen: the
composer is the last line starting with `› ` above a footer (no rules around it), and it
stays on screen while a turn runs, so "esc to interrupt" on the `• Working (…)` line decides
"busy". An empty composer shows a dim placeholder ("Ask Codex to do anything") with the
cursor just after the mark; the capture has no colours, so a composer counts as empty only
when it holds a known placeholder and the cursor sits right after `› `. Earlier prompts stay
in the history as `› text` lines too: only the last one is the composer. The trust dialog
and approval questions ("Would you like to run the following command?") are numbered menus
whose selected option starts with `› 1.`.
"""

from __future__ import annotations

import re

from board.patterns import lazy
from workers.agents.adapter import Adapter, AgentKind, Reading, Screen, Sign
from workers.agents.readers.questions import find_question
from workers.agents.readers.tui import MENU, menu_question

MARK = "› "
_BUSY = lazy(r"esc to interrupt", re.IGNORECASE)
_ASK = lazy(r"would you like|do you want|trust this folder|allow ", re.IGNORECASE)
# The composer's placeholders in 0.169.0 (strings of the binary), shown when it is empty.
PLACEHOLDERS = frozenset({"Ask Codex to do anything", "Ask a follow-up question",
                          "Write a prompt or slash command"})


def composer(screen: Screen) -> tuple[int, str] | None:
    """(row, text after `› `) of the composer: the last `› ` line; None without one."""
    for row in range(len(screen.lines) - 1, -1, -1):
        line = screen.lines[row]
        if line.startswith(MARK) or line == MARK.strip():
            return row, line[len(MARK):].strip()
    return None


def composer_reading(screen: Screen) -> Reading | None:
    """PROMPT_EMPTY when the composer is empty (nothing, or a placeholder with the cursor
    right after the mark), PROMPT_TEXT with its text otherwise; None without a composer."""
    found = composer(screen)
    if found is None:
        return None
    row, text = found
    at_start = screen.cursor_y == row and screen.cursor_x == len(MARK)
    if not text or (text in PLACEHOLDERS and at_start):
        return Reading(Sign.PROMPT_EMPTY)
    return Reading(Sign.PROMPT_TEXT, text)


def _question(screen: Screen) -> str | None:
    """The question of a menu dialog, preferring Codex's own asking line ("Would you
    like to run the following command?") over a `Reason: …?` line below it."""
    question = menu_question(screen)
    if question is None:
        return None
    menu_row = next(row for row, line in enumerate(screen.lines) if MENU.match(line))
    asked = [line.strip() for line in screen.lines[:menu_row] if _ASK.search(line)]
    return asked[-1] if asked else question


class CodexScreen(Adapter):
    """What Codex's screen shows (its adapter, `codex.adapter`, adds the rest)."""

    kind = AgentKind.CODEX
    programs = frozenset({"codex", "node"})
    answers_menus = True  # "↑/↓ to select, Enter to confirm"
    uses_alternate_screen = True

    def read(self, screen: Screen) -> Reading:
        question = _question(screen)
        if question is not None:
            return Reading(Sign.QUESTION, question)
        busy = next((line.strip() for line in screen.lines if _BUSY.search(line)), None)
        if busy is not None:
            return Reading(Sign.BUSY, busy)
        prompt = composer_reading(screen)
        if prompt is not None:
            return prompt
        question = find_question(screen.lines)
        return Reading(Sign.QUESTION, question) if question else Reading(Sign.NOTHING)
