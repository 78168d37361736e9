"""Claude Code (2.1.x): its input box, its spinner and its dialogs, read from the screen.

Seen in 2.1.197 and 2.1.332 (fixtures in tests/fixtures/screens/claude_*): the input is a
`❯ ` line between two rules, and it stays on screen while a turn runs — so the footer's
"esc to interrupt" or the spinner line decides "busy", not the box. Start-up dialogs
(trust this folder, the API key, bypass permissions) and permission prompts ("Do you
want to proceed?") replace the box with a menu that takes Enter as an answer (numbered
in permission prompts; 2.1.332's start-up dialogs drop the numbers: "❯ No, exit"), and
end on "Enter to confirm · Esc to cancel". After Esc, the interrupted prompt is put back
into the input line. 2.1.332 draws everything but its start-up dialogs on the alternate
screen and runs in auto mode by default, whose notice "Auto mode can't check actions in
this session" (a gateway passed no server-side check) holds the action until answered.
"""

from __future__ import annotations

import re

from board.patterns import lazy
from workers.agents.adapter import Adapter, AgentKind, Reading, Screen, Sign
from workers.agents.readers.tui import (
    RULE,
    dialog_question,
    input_box,
    menu_question,
    prompt_reading,
)

_BUSY = lazy(r"esc to interrupt|^\s*[·✢✳✶✻✽*]\s+\S+…", re.IGNORECASE)
_CONFIRM = lazy(r"Enter to (?:confirm|stay)|Esc to cancel", re.IGNORECASE)
_AMEND = lazy(r"Tab to amend")  # the footer of a permission prompt
_DASHED = lazy(r"^╌{10,}$")  # 2.1.332 frames the command between dashed rules


class ClaudeScreen(Adapter):
    """What Claude Code's screen shows (its adapter, `claude.adapter`, adds the rest)."""

    kind = AgentKind.CLAUDE
    programs = frozenset({"claude", "node"})
    answers_menus = True  # "↑/↓ to select, Enter to confirm"
    # 2.1.332 draws its whole UI on the alternate screen (2.1.197 did not): that screen
    # is Claude's own, and a program run from it is still seen as a child in front.
    uses_alternate_screen = True

    def read(self, screen: Screen) -> Reading:
        question = menu_question(screen) or dialog_question(screen, _CONFIRM)
        if question is not None:
            return Reading(Sign.QUESTION, _with_tool_call(screen, question))
        busy = next((line.strip() for line in screen.lines if _BUSY.search(line)), None)
        if busy is not None:
            return Reading(Sign.BUSY, busy)
        return prompt_reading(input_box(screen, ("❯", ">"))) or Reading(Sign.NOTHING)


def _with_tool_call(screen: Screen, question: str) -> str:
    """A permission prompt's question with what it asks to run ("Bash command: touch x —
    Do you want to proceed?"): in auto mode no hook reports the prompt, so the screen's
    words are the reason needs-you shows. Other questions are returned as they are."""
    lines = [line.strip() for line in screen.lines]
    if not any(_AMEND.search(line) for line in lines) or question not in lines:
        return question
    asked = lines.index(question)
    top = max((row for row in range(asked) if RULE.match(screen.lines[row])), default=-1)
    body = [line for line in lines[top + 1: asked] if line]
    if top < 0 or len(body) < 2:  # no dialog frame: nothing tells its title
        return question
    dashed = [row for row, line in enumerate(body) if _DASHED.match(line)]
    what = body[dashed[0] + 1] if dashed and dashed[0] + 1 < len(body) else body[1]
    return f"{body[0]}: {what} — {question}"
