"""A pane's status from successive snapshots: working, idle, needs input or exited.

Pure logic over `PaneSnapshot`s and a clock, so it is tested with a fake clock. Hook
reports (which win) and `stopped` (no pane at all) are the caller's business.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from workers.tmux.panes import PaneSnapshot


class Status(StrEnum):
    """What a session is doing, as the dashboard and `bullpen ls` show it."""

    WORKING = "working"
    IDLE = "idle"
    NEEDS_INPUT = "needs_input"
    EXITED = "exited"
    STOPPED = "stopped"  # no pane: decided by the caller, never by the tracker


# Questions agents and tools ask before acting; matched in the last few visible lines.
PROMPT_PATTERNS: tuple[str, ...] = (
    r"\(y/n\)",
    r"\[y/n\]",
    r"\(yes/no\)",
    r"\[yes/no\]",
    r"(?-i:\bAllow\b)",  # capitalised: a question, not prose
    r"\bDo you want to\b",
    r"\bapprove\b",
    r"\bPress enter\b",
    r"\bPress any key\b",
)


@dataclass(frozen=True)
class PaneStatus:
    """A pane's status; `since` is the clock time it entered that status.

    `exit_code` (exited only) is the exit status, 128+N after signal N, or None for the
    moment between the pane closing and tmux reaping its process.
    """

    status: Status
    since: float
    exit_code: int | None = None
    prompt: str | None = None  # the line that matched a prompt pattern


@dataclass
class _Seen:
    content_hash: str | None
    changed_at: float
    status: PaneStatus


class StatusTracker:
    """Turns one snapshot per tick into a status per pane, debouncing idleness."""

    def __init__(self, idle_after: float = 1.5, clock: Callable[[], float] = time.monotonic,
                 prompt_patterns: Iterable[str] = PROMPT_PATTERNS,
                 prompt_lines: int = 4) -> None:
        """`idle_after`: seconds of unchanged content before a pane counts as idle."""
        self.idle_after = idle_after
        self.clock = clock
        self.prompt_lines = prompt_lines
        self._prompt = re.compile("|".join(f"(?:{p})" for p in prompt_patterns),
                                  re.IGNORECASE)
        self._seen: dict[str, _Seen] = {}

    def prompt_in(self, lines: tuple[str, ...]) -> str | None:
        """The last of `lines` (within `prompt_lines`) that looks like a question."""
        for line in reversed(lines[-self.prompt_lines:]):
            if self._prompt.search(line):
                return line
        return None

    def update(self, snapshots: Mapping[str, PaneSnapshot]) -> dict[str, PaneStatus]:
        """Record one tick; return the status of every pane in `snapshots`.

        Panes missing from `snapshots` are forgotten (the caller reports them stopped).
        """
        now = self.clock()
        for gone in set(self._seen) - set(snapshots):
            del self._seen[gone]
        result: dict[str, PaneStatus] = {}
        for pane_id, snap in snapshots.items():
            seen = self._seen.get(pane_id)
            changed = seen is None or (snap.content_hash is not None
                                       and snap.content_hash != seen.content_hash)
            changed_at = now if changed or seen is None else seen.changed_at
            status, exit_code, prompt = self._classify(snap, changed, now - changed_at)
            previous = seen.status if seen is not None else None
            if (previous is not None and previous.status == status
                    and previous.exit_code == exit_code and previous.prompt == prompt):
                current = previous
            else:
                current = PaneStatus(status, now, exit_code, prompt)
            content_hash = snap.content_hash
            if content_hash is None and seen is not None:
                content_hash = seen.content_hash  # not captured this tick: keep the last
            self._seen[pane_id] = _Seen(content_hash, changed_at, current)
            result[pane_id] = current
        return result

    def _classify(self, snap: PaneSnapshot, changed: bool,
                  unchanged_for: float) -> tuple[Status, int | None, str | None]:
        if snap.dead:
            code = snap.dead_status
            if code is None and snap.dead_signal is not None:
                code = 128 + snap.dead_signal  # the shell's convention for a signal
            return Status.EXITED, code, None
        if changed:
            return Status.WORKING, None, None
        prompt = self.prompt_in(snap.last_lines)
        if prompt is not None:
            return Status.NEEDS_INPUT, None, prompt
        if unchanged_for >= self.idle_after:
            return Status.IDLE, None, None
        return Status.WORKING, None, None

    def forget(self, pane_id: str) -> None:
        """Drop what is known about a pane (e.g. after it was respawned)."""
        self._seen.pop(pane_id, None)
