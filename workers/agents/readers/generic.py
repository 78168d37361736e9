"""Any other program: typed into only when the user opted in (`deliver: type`).

bullpen cannot know a generic program's prompt, so it never claims to see one: the
reader only recognises questions near the cursor (a line-oriented program asks, then
reads on the same or the next line). With the opt-in, a generic agent that is in front,
still and not asking anything is typed into.
"""

from __future__ import annotations

from workers.agents.adapter import Adapter, AgentKind, Reading, Screen, Sign
from workers.agents.readers.questions import find_question


class GenericAdapter(Adapter):
    kind = AgentKind.GENERIC
    line_oriented = True
    prompt_known = False  # in front, still and not asking is all that can be seen

    def __init__(self, opted_in: bool = False, program: str = "") -> None:
        self.opted_in = opted_in
        self.programs = frozenset({program}) if program else frozenset()

    def read(self, screen: Screen) -> Reading:
        upto = [line for line in screen.lines[: screen.cursor_y + 1]]
        near = [line for line in upto if line.strip()][-2:]
        question = find_question(near)
        if question is not None:
            return Reading(Sign.QUESTION, question)
        return Reading(Sign.NOTHING)
