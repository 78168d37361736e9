"""Pieces shared by the readers of full-screen agents (Claude Code, Hermes, Codex).

Their input box is a line that starts with a prompt mark and sits between two
horizontal rules (`────`); a dialog replaces it with a numbered menu.
"""

from __future__ import annotations

import re

from board.patterns import lazy
from workers.agents.adapter import Reading, Screen, Sign

RULE = lazy(r"^\s*[─━—]{10,}\s*$")
MENU = lazy(r"^\s*[❯›>]\s*\d+\.\s")  # the selected option of a numbered menu


def input_box(screen: Screen, marks: tuple[str, ...]) -> tuple[int, str] | None:
    """(row, text after the mark) of the last line that is one of `marks` followed by
    a space (Claude uses a no-break space) or nothing, with a rule just above it;
    None when there is no such input line."""
    pattern = re.compile(rf"^(?:{'|'.join(re.escape(mark) for mark in marks)})(?:\s(.*))?$")
    lines = screen.lines
    for row in range(len(lines) - 1, 0, -1):
        match = pattern.match(lines[row])
        if match and RULE.match(lines[row - 1]):
            return row, (match.group(1) or "").strip()
    return None


def menu_question(screen: Screen) -> str | None:
    """The question of a numbered-menu dialog on screen, or None when there is none.

    The question is the last line with a `?` above the menu; failing that, the
    dialog's first line (the one after the rule above the menu)."""
    lines = screen.lines
    menu_row = next((row for row, line in enumerate(lines) if MENU.match(line)), None)
    if menu_row is None:
        return None
    asked = [line.strip() for line in lines[:menu_row] if "?" in line]
    if asked:
        return asked[-1]
    top = max((row for row in range(menu_row) if RULE.match(lines[row])), default=-1)
    first = next((line.strip() for line in lines[top + 1: menu_row] if line.strip()), None)
    return first or lines[menu_row].strip()


def dialog_question(screen: Screen, footer: re.Pattern[str]) -> str | None:
    """The question of a dialog whose last line matches `footer` ("Enter to confirm ·
    Esc to cancel"), or None when no such line is on screen.

    The dialog is the part below the last rule above that line. Its question is the
    last line there with a `?`; failing that, its first line (the dialog's title:
    "WARNING: … Bypass Permissions mode", "Auto mode can't check actions…")."""
    lines = screen.lines
    end = next((row for row in range(len(lines) - 1, -1, -1) if footer.search(lines[row])),
               None)
    if end is None:
        return None
    top = max((row for row in range(end) if RULE.match(lines[row])), default=-1)
    body = [line.strip() for line in lines[top + 1: end] if line.strip()]
    asked = [line for line in body if "?" in line and not MENU.match(line)]
    if asked:
        return asked[-1]
    return body[0] if body else lines[end].strip()


def prompt_reading(box: tuple[int, str] | None) -> Reading | None:
    """PROMPT_EMPTY / PROMPT_TEXT for an input box, None without one."""
    if box is None:
        return None
    text = box[1]
    return Reading(Sign.PROMPT_TEXT, text) if text else Reading(Sign.PROMPT_EMPTY)
