"""Hermes Agent (0.19, classic `--cli`): its prompt_toolkit input line, read from the screen.

Seen in 0.19.0 (fixtures tests/fixtures/screens/hermes_*): idle, the input is a `❯` line
between two rules; while a turn runs the same line reads `⚕ ❯ msg=interrupt · /queue ·
/bg · /steer · Ctrl+C cancel` and a timer (`⏱ 4s`) ticks above it. Enter while busy
interrupts the turn, so bullpen never types into a busy Hermes: the `pre_llm_call` hook
hands pending notes to the model at its next call instead.

A dangerous terminal command (`rm -rf …`; approvals at their default `mode: smart`, when
the auxiliary model does not approve it) opens a boxed menu above the input while the
turn's timer keeps ticking (fixture hermes_approval_menu): `⚠️  Dangerous Command`, the
command, `❯ 1. Allow once` … `4. Deny`, the reason, and a countdown (`approvals.timeout`,
60 s, then it denies). That is a question, read before the busy marks around it; so
are the clarify tool's question, the sudo password and a skill's secret
(`hermes.prompts`).
"""

from __future__ import annotations

from board.patterns import lazy
from workers.agents.adapter import Adapter, AgentKind, Reading, Screen, Sign
from workers.agents.hermes.prompts import prompt_question, waiting_input
from workers.agents.readers.questions import find_question
from workers.agents.readers.tui import input_box, menu_question, prompt_reading

_BUSY_INPUT = lazy(r"^\s*(?:[\w.-]+\s+)?⚕\s*(?:[\w.-]+\s+)?❯")
# On any profile but `default` the prompt carries the profile's name: `bullpen-coder ❯`
# (bullpen always runs Hermes on a profile, `bullpen-<session>` by default).
_PROFILE_PREFIX = lazy(r"^[\w.-]+ (?=❯)")
_BUSY = lazy(r"Ctrl\+C cancel|⏱ \d")
_APPROVAL_TITLE = "Dangerous Command"
_BOX_ROW = lazy(r"^\s*│ ?(.*?) ?│\s*$")
_CHOICE = lazy(r"^(?:❯\s*)?\d+\.\s+(.+)$")
_CUT = "… ("  # Hermes' own marks on a long command: `… (choose Show full command)`
COMMAND_SHOWN = 160  # characters of the command kept in the question


def approval_question(lines: tuple[str, ...]) -> str | None:
    """The dangerous-command menu as one question, `Dangerous Command: CMD (REASON):
    Allow once / … / Deny`; None when no such menu is on screen."""
    top = next((row for row, line in enumerate(lines)
                if _APPROVAL_TITLE in line and _BOX_ROW.match(line)), None)
    if top is None:
        return None
    rows = []
    for line in lines[top + 1:]:
        match = _BOX_ROW.match(line)
        if match is None:
            break  # the box's bottom border
        rows.append(match.group(1).strip())
    choices = [(row, found.group(1)) for row, text in enumerate(rows)
               if (found := _CHOICE.match(text))]
    if not choices:
        return None
    first, last = choices[0][0], choices[-1][0]
    command = " ".join(text for text in rows[:first] if text and not text.startswith(_CUT))
    if len(command) > COMMAND_SHOWN:
        command = command[:COMMAND_SHOWN - 1] + "…"
    reason = " ".join(text for text in rows[last + 1:] if text)
    asked = f"{_APPROVAL_TITLE}: {command}" + (f" ({reason})" if reason else "")
    return f"{asked}: {' / '.join(label for _row, label in choices)}"


class HermesScreen(Adapter):
    """What Hermes' screen shows (its adapter, `hermes.adapter`, adds the rest)."""

    kind = AgentKind.HERMES
    programs = frozenset({"hermes", "python", "python3"})
    answers_menus = True  # "↑/↓ to select, Enter to confirm"

    def read(self, screen: Screen) -> Reading:
        asked = approval_question(screen.lines) or prompt_question(screen.lines)
        if asked is not None:
            return Reading(Sign.QUESTION, asked)
        waiting = waiting_input(screen.lines)
        if waiting is not None:  # the panel is off screen; Enter would still answer it
            return Reading(Sign.QUESTION, waiting)
        busy = next((line.strip() for line in screen.lines
                     if _BUSY_INPUT.search(line) or _BUSY.search(line)), None)
        if busy is not None:
            return Reading(Sign.BUSY, busy)
        bare = Screen(tuple(_PROFILE_PREFIX.sub("", line) for line in screen.lines),
                      screen.cursor_x, screen.cursor_y, screen.alternate, screen.in_mode)
        prompt = prompt_reading(input_box(bare, ("❯",)))
        if prompt is not None:
            return prompt  # questions above it are the transcript, already answered
        question = menu_question(screen) or find_question(screen.lines)
        if question is not None:
            return Reading(Sign.QUESTION, question)
        return Reading(Sign.NOTHING)

    def busy_line(self, text: str) -> str | None:
        """`/queue TEXT` queues a message for after the turn; bullpen does not use it
        (the screen is never still while busy, and the hook delivers at the next call)."""
        return "/queue " + " ".join(text.split())
