"""What a human typed on a generic program's cursor line, which bullpen must never type onto.

A generic program has no prompt bullpen knows, so its input line cannot be read as
Claude's or Hermes' can. What can be seen: the line the cursor is on, and who changed it.
A human types through a tmux client, which tmux counts (`client_activity`, whole
seconds), so a change of the cursor line that follows a key press is the human's echo;
a change with no key near it is the program's own output. The line as the program last
left it is the baseline; a cursor line that differs from it holds text of the human's.

A new line (the rows above the cursor changed: the program printed, or the human's
Enter submitted what was typed) starts a new baseline. Not covered: a human's text long
enough to wrap onto a new row starts one too.
"""

from __future__ import annotations

from dataclasses import dataclass

from workers.tmux.panes import PaneSnapshot

KEY_ECHO = 2.0  # seconds after a key press in which a change is its echo (whole seconds)


@dataclass
class _Line:
    above: int  # hash of the rows above the cursor
    base: str  # the cursor line as the program left it


class CursorLines:
    """Per pane: the human's text on the cursor line ("" when there is none)."""

    def __init__(self) -> None:
        self._lines: dict[str, _Line] = {}
        self._last: dict[str, str] = {}  # the text found at the last captured tick

    def human_text(self, pane_id: str, snap: PaneSnapshot, changed: bool, now: float) -> str:
        """The text a human added to the cursor line of `snap` (`changed`: its screen
        differs from the last tick's; `now`: the wall clock)."""
        screen = snap.screen
        if not screen or snap.cursor_y >= len(screen):
            return self._last.get(pane_id, "")  # not captured this tick
        line = screen[snap.cursor_y].rstrip()
        above = hash(screen[: snap.cursor_y])
        known = self._lines.get(pane_id)
        if known is None or known.above != above:
            self._lines[pane_id] = _Line(above, line)  # a new line: the program's
        elif changed and line != known.base:
            keyed = snap.key_at is not None and snap.key_at >= now - KEY_ECHO
            if not keyed:
                known.base = line  # the program rewrote its own line
        base = self._lines[pane_id].base
        text = "" if line == base else (line[len(base):] if line.startswith(base) else line)
        self._last[pane_id] = text.strip()
        return self._last[pane_id]

    def forget(self, pane_id: str) -> None:
        """Drop what is known about a pane."""
        self._lines.pop(pane_id, None)
        self._last.pop(pane_id, None)
