"""The room's SQLite store write-locked by another process: a real sqlite3 connection
holding BEGIN EXCLUSIVE (or IMMEDIATE) until it is let go."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

# Holds the store's write lock until its stdin closes.
LOCKER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN " + sys.argv[2])
print("locked", flush=True)
sys.stdin.read()
conn.execute("ROLLBACK")
"""


class LockHolder:
    """Another process holding the store's write lock from its start to `release`."""

    def __init__(self, db: Path, mode: str = "EXCLUSIVE") -> None:
        self.process = subprocess.Popen([sys.executable, "-c", LOCKER, str(db), mode],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True)
        assert self.process.stdout is not None
        if self.process.stdout.readline().strip() != "locked":
            self.release()
            raise AssertionError(f"could not lock {db}")

    def release(self) -> None:
        """Let the lock go (and wait for the holder to end)."""
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        self.process.wait(timeout=30)


@contextlib.contextmanager
def store_locked(db: Path, mode: str = "EXCLUSIVE") -> Iterator[LockHolder]:
    """The store at `db` write-locked by another process while the block runs."""
    holder = LockHolder(db, mode)
    try:
        yield holder
    finally:
        holder.release()
