"""Where a session's code stands, as a done card and the session detail show it:
`landed abc1234`, `ready to land`, `conflicts with coder (src/app.py)` (the words of
`bullpen ls`), or `nothing to land` when the base holds all its branch has."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workers.room.code_view import CodeFlow


@dataclass(frozen=True)
class CodeMark:
    """A short symbol (narrow columns crop the line's end), the words, and their style."""

    symbol: str
    text: str
    style: str


def code_mark(flow: CodeFlow | None) -> CodeMark | None:
    """The mark for one session's code; None when nothing is known of it."""
    if flow is None:
        return None
    if flow.conflicts:
        return CodeMark("⚠", flow.summary, "red")
    if flow.landed:
        return CodeMark("✓", flow.summary, "green")
    if flow.ready:
        return CodeMark("↑", flow.summary, "cyan")
    if flow.ahead == 0:
        return CodeMark("✓", "nothing to land", "dim")
    if flow.ahead:
        return CodeMark("·", f"{flow.ahead} commit{'s' if flow.ahead != 1 else ''} to land",
                        "yellow")
    return None
