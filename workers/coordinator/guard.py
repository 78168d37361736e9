"""Telling store faults from bad data, so one bad item never stops the coordinator.

A store fault (disk full, read-only file, I/O error, corruption) is retried with
back-off: the work is still there when the store is writable again. Anything else an
item raises is that item's problem: it is logged with its reason and the loop goes on.
"""

from __future__ import annotations

import sqlite3

from board.errors import StoreFault

FIRST_DELAY = 0.1  # seconds before the first retry of a store fault
MAX_DELAY = 5.0


def is_store_fault(error: BaseException) -> bool:
    """Disk full, read-only, locked, I/O error or a malformed file: not the item's fault."""
    return (isinstance(error, (sqlite3.OperationalError, StoreFault))
            or type(error) is sqlite3.DatabaseError)


def reason(error: BaseException) -> str:
    """One line naming what went wrong (no traceback: the log stays readable)."""
    text = " ".join(str(error).split()) or type(error).__name__
    return f"{type(error).__name__}: {text}"[:300]


class Backoff:
    """Doubling delays from FIRST_DELAY up to MAX_DELAY; reset on success."""

    def __init__(self) -> None:
        self.delay = 0.0

    def failed(self) -> float:
        self.delay = min(MAX_DELAY, self.delay * 2) if self.delay else FIRST_DELAY
        return self.delay

    def succeeded(self) -> bool:
        """Reset; True if the last attempts had been failing."""
        was_failing = self.delay > 0
        self.delay = 0.0
        return was_failing
