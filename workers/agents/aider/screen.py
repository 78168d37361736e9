"""aider: a line-oriented REPL whose prompt is `> ` (or `architect> `, `ask> ` …) at the
cursor; it asks `(Y)es/(N)o` questions on the cursor line.

No aider is installed here: the reader follows aider's documented prompts and has no
captured fixtures.
"""

from __future__ import annotations

import re

from board.patterns import lazy
from workers.agents.adapter import Adapter, AgentKind, Reading, Screen, Sign
from workers.agents.readers.questions import asks

_PROMPT = lazy(r"^(?:[\w-]+)?> ")
_YES_NO = lazy(r"\(Y\)es/\(N\)o", re.IGNORECASE)


class AiderScreen(Adapter):
    """What aider's screen shows (its adapter, `aider.adapter`, adds the rest)."""

    kind = AgentKind.AIDER
    programs = frozenset({"aider", "python", "python3"})

    def read(self, screen: Screen) -> Reading:
        line = screen.cursor_line
        if _YES_NO.search(line) or asks(line):
            return Reading(Sign.QUESTION, line.strip())
        match = _PROMPT.match(line)
        if match is None:
            return Reading(Sign.NOTHING)
        typed = line[match.end():].strip()
        return Reading(Sign.PROMPT_TEXT, typed) if typed else Reading(Sign.PROMPT_EMPTY)
