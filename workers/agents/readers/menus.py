"""A question's choices, read from the menu the agent draws, and its fingerprint.

Claude Code, Codex and Hermes ask with a menu whose selected line carries a mark:
Claude's `❯ 1. Yes` (2.1.332's auto-mode approval and start-up dialogs drop the number:
` ❯ No`), Codex's `› 1. Yes, proceed (y)`, Hermes' boxed `│ ❯ 1. Allow once │`. The
dialog above the menu (up to the rule or the box's top; without a frame, up to a gap of
two blank lines) is the question's context: what it asks to run, and why.

The fingerprint hashes the dialog's words and the choices, not which choice is selected
nor what ticks outside the dialog (Hermes' countdown, a timer), so it names the question
itself: an answer is typed only while the same fingerprint is on screen.

Choices are answered the way each of these menus documents ("↑/↓ to select, Enter to
confirm"): the selector is moved with arrow keys, the screen read again, and Enter pressed
only once the selector is on the chosen line of the same question (`workers.room.answers`).
"""

from __future__ import annotations

import hashlib

from board.patterns import lazy
from board.records import record
from workers.agents.adapter import Screen
from workers.agents.readers.tui import RULE

_BOX_ROW = lazy(r"^\s*│ ?(.*?) ?│\s*$")
_BOX_TOP = lazy(r"^\s*╭")
_NUMBERED = lazy(r"^(\s*)(?:([❯›>])\s*)?(\d+)\.\s+(\S.*)$")
_MARKED = lazy(r"^(\s+)([❯›])\s+(\S.*)$")  # an unnumbered menu's selected line: indented
_DECORATION = lazy(r"^[\s─━—╌┄┈═│╭╮╰╯]*$")
FINGERPRINT_HEX = 8  # the question's id: 32 bits, enough to tell apart what is on screen


@record(frozen=True)
class Choice:
    """One choice as the agent offers it: its place in the menu (1 = first) and label."""

    number: int
    label: str

    def to_json(self) -> dict:
        return {"number": self.number, "label": self.label}


@record(frozen=True)
class Asked:
    """A question on screen: its line, the dialog's lines above the menu (context), the
    choices, which one is selected now (an index into `choices`) and the fingerprint."""

    question: str
    context: tuple[str, ...]
    choices: tuple[Choice, ...]
    selected: int
    fingerprint: str


def _inner(line: str) -> str:
    """A line without the box's borders around it (Hermes draws its menu in a box)."""
    match = _BOX_ROW.match(line)
    return match.group(1) if match else line


def _option(line: str, column: int | None) -> tuple[bool, int | None, str] | None:
    """(selected, number or None, label) when `line` is a menu option; an unnumbered
    option counts only at the text `column` of the selected one."""
    numbered = _NUMBERED.match(line)
    if numbered:
        return bool(numbered.group(2)), int(numbered.group(3)), numbered.group(4).strip()
    marked = _MARKED.match(line)
    if marked:
        return True, None, marked.group(3).strip()
    if column is not None and line.strip() and len(line) - len(line.lstrip()) == column:
        return False, None, line.strip()
    return None


def _selector(lines: list[str]) -> int | None:
    """The row of the selected option: the last marked line (a numbered `❯ 1.` anywhere,
    an unnumbered one only indented, so an input box or `› prompt` history is not one)."""
    found = None
    for row, line in enumerate(lines):
        numbered = _NUMBERED.match(line)
        if (numbered and numbered.group(2)) or _MARKED.match(line):
            found = row
    return found


def _block(lines: list[str], at: int) -> tuple[int, int, list[tuple[bool, int | None, str]]]:
    """The rows (first, last) and options of the menu around the selected row `at`."""
    first = _option(lines[at], None)
    assert first is not None
    numbered = first[1] is not None
    column = None if numbered else len(lines[at]) - len(lines[at].lstrip()) + 2

    def option(row: int) -> tuple[bool, int | None, str] | None:
        found = _option(lines[row], column)
        if found is None or (found[1] is not None) != numbered:
            return None
        return found

    top = at
    while top > 0 and option(top - 1) is not None:
        top -= 1
    bottom = at
    while bottom + 1 < len(lines) and option(bottom + 1) is not None:
        bottom += 1
    options = [found for row in range(top, bottom + 1) if (found := option(row)) is not None]
    return top, bottom, options


def _dialog_top(lines: list[str], raw: tuple[str, ...], menu_top: int) -> int:
    """The first row of the dialog holding the menu: below the rule or the box's top
    above it; without a frame (Codex), below the first gap of two blank lines going up
    past the blank lines right above the menu."""
    blank, start = 0, menu_top - 1
    while start > 0 and not lines[start].strip() and not RULE.match(raw[start]):
        start -= 1
    for row in range(start, -1, -1):
        if RULE.match(raw[row]) or _BOX_TOP.match(raw[row]):
            return row + 1
        blank = blank + 1 if not lines[row].strip() else 0
        if blank == 2:
            return row + 2
    return 0


def _dialog_end(raw: tuple[str, ...], menu_bottom: int) -> int:
    """The last row of the dialog's words: a box's last row inside it, else the menu's."""
    if not _BOX_ROW.match(raw[menu_bottom]):
        return menu_bottom
    end = menu_bottom
    while end + 1 < len(raw) and _BOX_ROW.match(raw[end + 1]):
        end += 1
    return end


def fingerprint(context: tuple[str, ...], choices: tuple[Choice, ...]) -> str:
    """The id of a question: a hash of its words and choices (spacing ignored)."""
    words = [" ".join(line.split()) for line in context]
    words += [f"{item.number}. {' '.join(item.label.split())}" for item in choices]
    return hashlib.sha256("\n".join(words).encode()).hexdigest()[:FINGERPRINT_HEX]


def read_menu(screen: Screen) -> Asked | None:
    """The menu question on `screen` with its choices, or None when no menu is shown."""
    lines = [_inner(line) for line in screen.lines]
    at = _selector(lines)
    if at is None:
        return None
    top, bottom, options = _block(lines, at)
    start = _dialog_top(lines, screen.lines, top)
    end = _dialog_end(screen.lines, bottom)
    above = tuple(line.strip() for line in lines[start:top]
                  if line.strip() and not _DECORATION.match(line))
    below = tuple(line.strip() for line in lines[bottom + 1:end + 1]
                  if line.strip() and not _DECORATION.match(line))
    choices = tuple(Choice(number or place, label)
                    for place, (_, number, label) in enumerate(options, start=1))
    selected = next(index for index, found in enumerate(options) if found[0])
    asked = [line for line in above if "?" in line]
    question = asked[-1] if asked else (above[0] if above else choices[selected].label)
    context = above + below
    return Asked(question, context, choices, selected, fingerprint(context, choices))


def pick(choices: tuple[Choice, ...], wanted: str) -> Choice | None:
    """The choice `wanted` names: its number ("2"), or its label (case and spacing
    ignored); None when none does (a label two choices share names neither)."""
    if wanted.strip().isdigit():
        number = int(wanted)
        return next((item for item in choices if item.number == number), None)
    key = " ".join(wanted.split()).casefold()
    named = [item for item in choices if " ".join(item.label.split()).casefold() == key]
    return named[0] if len(named) == 1 else None


def arrow_keys(choices: tuple[Choice, ...], selected: int, choice: Choice) -> tuple[str, ...]:
    """The tmux keys that move the selector from `choices[selected]` onto `choice`."""
    step = choices.index(choice) - selected
    return ("Down",) * step if step >= 0 else ("Up",) * -step


ANSWER_KEY = "Enter"  # confirms the selected choice in each of these menus
