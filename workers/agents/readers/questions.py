"""Questions any program may ask: yes/no, passwords, host keys, menus, "press enter".

`find_question` searches lines of a screen and returns the last line that asks one.
A screen reader decides which lines count (a TUI's whole screen; a shell's cursor line).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from board.patterns import lazy

PATTERNS: tuple[str, ...] = (
    r"\(y/n\)", r"\[y/n\]", r"\(yes/no", r"\[yes/no\]", r"\[y/N\]", r"\(Y/n\)",
    r"\[sudo\] password for", r"(?:^|\s)password(?: for [^:]+)?:\s*$",
    r"passphrase for key", r"\bverification code:\s*$",
    r"continue connecting", r"\bAre you sure\b", r"\bDo you want to\b",
    r"\bDo you trust\b", r"\btrust this folder\b", r"\bI accept\b",
    r"(?-i:\bAllow\b)",  # capitalised: a question, not prose
    r"\bapprove\b", r"\bPress enter\b", r"\bPress any key\b", r"\bEnter to confirm\b",
    r"\bOverwrite\b.*\?", r"^\s*[❯›>]\s*1\.\s",  # a numbered menu with its selector
)
_QUESTION = lazy("|".join(f"(?:{p})" for p in PATTERNS), re.IGNORECASE)


def asks(line: str) -> bool:
    """True when `line` reads as a question waiting for an answer."""
    return _QUESTION.search(line) is not None


def find_question(lines: Iterable[str]) -> str | None:
    """The last of `lines` that asks a question, stripped; None when none does."""
    found = None
    for line in lines:
        if line.strip() and asks(line):
            found = line.strip()
    return found
