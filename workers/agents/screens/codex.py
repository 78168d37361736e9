"""OpenAI Codex CLI: a full-screen TUI with a `›` input line; "esc to interrupt" while busy.

No Codex is installed here, so this reader follows Codex's documented screen (its input
composer, "Esc to interrupt" while working, numbered approval menus) and has no
captured fixtures; its behaviour is the shared TUI rules of `screens.tui`.
"""

from __future__ import annotations

import re

from workers.agents.adapter import Adapter, AgentKind, Reading, Screen, Sign
from workers.agents.screens.questions import find_question
from workers.agents.screens.tui import input_box, menu_question, prompt_reading

_BUSY = re.compile(r"esc to interrupt", re.IGNORECASE)


class CodexAdapter(Adapter):
    kind = AgentKind.CODEX
    programs = frozenset({"codex", "node"})
    uses_alternate_screen = True

    def read(self, screen: Screen) -> Reading:
        question = menu_question(screen)
        if question is not None:
            return Reading(Sign.QUESTION, question)
        busy = next((line.strip() for line in screen.lines if _BUSY.search(line)), None)
        if busy is not None:
            return Reading(Sign.BUSY, busy)
        prompt = prompt_reading(input_box(screen, ("›", "▌", ">")))
        if prompt is not None:
            return prompt
        question = find_question(screen.lines)
        return Reading(Sign.QUESTION, question) if question else Reading(Sign.NOTHING)
