"""Hermes' own prompts inside a turn, read from the screen: the clarify tool's question,
the sudo password and a skill's secret (0.19.0 `cli.py`, fixtures hermes_clarify_*,
hermes_sudo_password, hermes_secret_prompt).

Each is a panel above the input, titled on its top border (`╭─ Hermes needs your input
─╮`, `╭─ 🔐 Sudo Password Required ─╮`, `╭─ 🔑 Skill Setup Required ─╮`), and the input
line carries the prompt's mark instead of the busy `⚕`: `? ❯` (choices), `✎ ❯` (an
open answer), `🔐 ❯`, `🔑 ❯`. Enter there answers Hermes, so each is a question.
"""

from __future__ import annotations

from board.patterns import lazy
from workers.agents.readers.tui import RULE

CLARIFY = "Hermes needs your input"
SUDO = "Sudo Password Required"
SECRET = "Skill Setup Required"
_TITLED = lazy(rf"^\s*╭─ (?:\S+ )?({CLARIFY}|{SUDO}|{SECRET}) ─*╮\s*$")
_BOX_ROW = lazy(r"^\s*│ ?(.*?) ?│\s*$")
_CHOICE = lazy(r"^(?:❯\s*)?\d+\.\s+(.+)$")
_OPEN_ANSWER = "Type your answer in the prompt below, then press Enter."  # no choices
_TRUNCATED = "… (question truncated)"
# The input line while one of them waits: its mark, then Hermes' `❯`.
_PROMPT_MARK = lazy(r"^\s*(?:[\w.-]+\s+)?(?:\?|✎|🔐|🔑|⚠)\s*(?:[\w.-]+\s+)?❯")


def _rows(lines: tuple[str, ...], top: int) -> list[str]:
    """The words inside the panel whose top border is row `top`, one entry a row."""
    rows = []
    for line in lines[top + 1:]:
        match = _BOX_ROW.match(line)
        if match is None:
            break  # the bottom border
        rows.append(match.group(1).strip())
    return rows


def _paragraphs(rows: list[str]) -> list[list[str]]:
    """The panel's rows in the paragraphs Hermes separates with a blank row."""
    paragraphs: list[list[str]] = [[]]
    for row in rows:
        if row:
            paragraphs[-1].append(row)
        elif paragraphs[-1]:
            paragraphs.append([])
    return [part for part in paragraphs if part]


def prompt_question(lines: tuple[str, ...]) -> str | None:
    """The prompt's panel as one question (`Hermes needs your input: QUESTION: A / B /
    Other (type your answer)`, `Sudo Password Required: …`, `Skill Setup Required: PROMPT
    (HELP)`); None when no such panel is on screen."""
    found = next(((row, match.group(1)) for row, line in enumerate(lines)
                  if (match := _TITLED.match(line))), None)
    if found is None:
        return None
    top, title = found
    paragraphs = _paragraphs(_rows(lines, top)) or [[]]
    if title == CLARIFY:
        rows = [row for part in paragraphs for row in part]
        choices = [match.group(1) for row in rows if (match := _CHOICE.match(row))]
        asked = [row for row in paragraphs[0] if row != _TRUNCATED]
        if choices:
            asked = asked[:next((at for at, row in enumerate(asked) if _CHOICE.match(row)),
                                len(asked))]
        question = " ".join(asked).replace(_OPEN_ANSWER, "").strip()
        return f"{title}: {question}" + (f": {' / '.join(choices)}" if choices else "")
    if title == SECRET:  # the skill's prompt, its help below it, then how to skip
        prompt, *help_rows = paragraphs[0] or [""]
        return f"{title}: {prompt}" + (f" ({' '.join(help_rows)})" if help_rows else "")
    return f"{title}: {' '.join(paragraphs[0])}"


def waiting_input(lines: tuple[str, ...]) -> str | None:
    """The input line (the last line between two rules) when it carries a waiting
    prompt's mark (`🔐 ❯`), stripped; None otherwise. Only there: the transcript, which
    may quote anything, is above it."""
    framed = [line for above, line, below in zip(lines, lines[1:], lines[2:], strict=False)
              if RULE.match(above) and RULE.match(below)]
    if not framed or not _PROMPT_MARK.match(framed[-1]):
        return None
    return framed[-1].strip()
