"""Claude Code (2.1.x): its input box, its spinner and its dialogs, read from the screen.

Seen in 2.1.197 (fixtures in tests/fixtures/screens/claude_*): the input is a `❯ ` line
between two rules, and it stays on screen while a turn runs — so the footer's
"esc to interrupt" or the spinner line decides "busy", not the box. Start-up dialogs
(trust this folder, the API key, bypass permissions) and permission prompts ("Do you
want to proceed?") replace the box with a numbered menu that takes Enter as an answer.
After Esc, the interrupted prompt is put back into the input line.
"""

from __future__ import annotations

import re

from workers.agents.adapter import Adapter, AgentKind, Reading, Screen, Sign
from workers.agents.readers.questions import find_question
from workers.agents.readers.tui import input_box, menu_question, prompt_reading

_BUSY = re.compile(r"esc to interrupt|^\s*[·✢✳✶✻✽*]\s+\S+…", re.IGNORECASE)
_CONFIRM = re.compile(r"Enter to confirm|Esc to cancel", re.IGNORECASE)


class ClaudeAdapter(Adapter):
    kind = AgentKind.CLAUDE
    programs = frozenset({"claude", "node"})
    has_hooks = True  # UserPromptSubmit pulls pending notes into the prompt's turn

    def read(self, screen: Screen) -> Reading:
        question = menu_question(screen)
        if question is None and any(_CONFIRM.search(line) for line in screen.lines):
            question = find_question(screen.lines) or "a dialog is open"
        if question is not None:
            return Reading(Sign.QUESTION, question)
        busy = next((line.strip() for line in screen.lines if _BUSY.search(line)), None)
        if busy is not None:
            return Reading(Sign.BUSY, busy)
        return prompt_reading(input_box(screen, ("❯", ">"))) or Reading(Sign.NOTHING)
