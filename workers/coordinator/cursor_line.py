"""What a human typed on a generic program's cursor line, which bullpen must never type onto.

A generic program has no prompt bullpen knows, so its input line cannot be read as
Claude's or Hermes' can. What can be seen: the line the cursor is on, and who changed it.
A human types through a tmux client, which tmux counts (`client_activity`, whole
seconds), so a change of the cursor line that follows a key press is the human's echo;
a change with no key near it is the program's own output. The line as the program last
left it is the baseline; a cursor line that differs from it holds text of the human's.

A key press is not the only way text reaches the line: `tmux send-keys`, a paste from
another program, a terminal multiplexer inside the pane all type without a client key.
So a change with no key near it counts as the program's own only when the program in
front (its terminal's foreground group; /proc/PID/io, and its terminal's mode) printed it.
A canonical-mode program (a line read with `read`/`input`) is asleep in its read while
a half line is echoed by the terminal itself: a change while it wrote nothing is not
its own. (The terminal's unread-input count, FIONREAD, cannot show that half line: Linux
counts only completed lines in canonical mode, 0 here.) A raw-mode program (a readline
REPL) echoes each key itself, having read it first: a change that comes with a read of
at most a line of keys (LINE_OF_KEYS bytes) is taken as typed, whoever typed it; a
bigger read is the program loading something. When /proc cannot say (another user's
process, no /proc), only the key press decides, as before.

A new line (the rows above the cursor changed: the program printed, or the human's
Enter submitted what was typed) starts a new baseline. Not covered: a human's text long
enough to wrap onto a new row starts one too; a raw-mode program that reads a little
(a small file, a pipe) in the tick it rewrites its own line keeps its old baseline until
its next line (notes wait, never glued).
"""

from __future__ import annotations

import os
import termios
from dataclasses import dataclass
from pathlib import Path

from workers.tmux.panes import PaneSnapshot, foreground_group

KEY_ECHO = 2.0  # seconds after a key press in which a change is its echo (whole seconds)
LINE_OF_KEYS = 4096  # bytes: more read in a tick is not keys but a program loading


@dataclass
class _Line:
    above: int  # hash of the rows above the cursor
    base: str  # the cursor line as the program left it


class CursorLines:
    """Per pane: the human's text on the cursor line ("" when there is none)."""

    def __init__(self) -> None:
        self._lines: dict[str, _Line] = {}
        self._last: dict[str, str] = {}  # the text found at the last captured tick
        self._io: dict[str, tuple[int, int, bool] | None] = {}  # see program_io

    def human_text(self, pane_id: str, snap: PaneSnapshot, changed: bool, now: float) -> str:
        """The text a human added to the cursor line of `snap` (`changed`: its screen
        differs from the last tick's; `now`: the wall clock)."""
        screen = snap.screen
        if not screen or snap.cursor_y >= len(screen):
            return self._last.get(pane_id, "")  # not captured this tick
        line = screen[snap.cursor_y].rstrip()
        above = hash(screen[: snap.cursor_y])
        known = self._lines.get(pane_id)
        io, before = program_io(snap.pid), self._io.get(pane_id)
        self._io[pane_id] = io
        if known is None or known.above != above:
            self._lines[pane_id] = _Line(above, line)  # a new line: the program's
        elif changed and line != known.base:
            keyed = snap.key_at is not None and snap.key_at >= now - KEY_ECHO
            if not keyed and _printed_unasked(before, io):
                known.base = line  # the program rewrote its own line
        base = self._lines[pane_id].base
        text = "" if line == base else (line[len(base):] if line.startswith(base) else line)
        self._last[pane_id] = text.strip()
        return self._last[pane_id]

    def forget(self, pane_id: str) -> None:
        """Drop what is known about a pane."""
        self._lines.pop(pane_id, None)
        self._last.pop(pane_id, None)
        self._io.pop(pane_id, None)


def program_io(pid: int | None) -> tuple[int, int, bool] | None:
    """(bytes read, bytes written, whether its terminal is in canonical mode) of the
    program in front of the terminal of pane process `pid` (its foreground group's
    leader); None when /proc cannot say."""
    group = foreground_group(pid)
    if group is None:
        return None
    try:
        rows = dict(line.split(":", 1) for line in
                    Path(f"/proc/{group}/io").read_text().splitlines() if ":" in line)
        read, written = int(rows["rchar"]), int(rows["wchar"])
        terminal = os.open(f"/proc/{group}/fd/0", os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except (OSError, KeyError, ValueError):
        return None
    try:
        canonical = bool(termios.tcgetattr(terminal)[3] & termios.ICANON)
    except termios.error:
        return None  # its input is no terminal: nothing can be said
    finally:
        os.close(terminal)
    return read, written, canonical


def _printed_unasked(before: tuple[int, int, bool] | None,
                     now: tuple[int, int, bool] | None) -> bool:
    """Whether the program in front printed the change seen between two ticks itself
    (/proc unreadable at either: the key press alone decides)."""
    if before is None or now is None:
        return True
    read, wrote, canonical = now[0] - before[0], now[1] > before[1], now[2]
    return wrote and (canonical or read == 0 or read > LINE_OF_KEYS)
