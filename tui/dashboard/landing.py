"""A landing the dashboard runs: its progress, written by the thread worker and read by
the land screen on a timer (plain Python, no Textual; the worker touches no widget)."""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass

SHOWN_LINES = 200  # the check's newest lines kept for the screen


@dataclass(frozen=True)
class LandOutcome:
    """How a landing ended: `text` is what landed, or the one-line reason it was refused."""

    session: str
    landed: bool
    text: str


class LandProgress:
    """The check's output so far, as a landing's worker reports it."""

    def __init__(self, session: str) -> None:
        self.session = session
        self.started = time.monotonic()
        self._lines: deque[str] = deque(maxlen=SHOWN_LINES)
        self._count = 0
        self._taken = 0  # lines handed to the screen so far
        self._lock = threading.Lock()
        self.outcome: LandOutcome | None = None

    def add(self, line: str) -> None:
        """One line of the check's output (from the worker's thread)."""
        with self._lock:
            self._lines.append(line)
            self._count += 1

    def take(self) -> tuple[list[str], int]:
        """The lines not taken before (at most the newest SHOWN_LINES), and the count so far."""
        with self._lock:
            fresh = min(self._count - self._taken, len(self._lines))
            self._taken = self._count
            return list(self._lines)[len(self._lines) - fresh:], self._count

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started
