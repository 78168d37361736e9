"""Waiting for the store to change: LISTEN/NOTIFY on PostgreSQL, a short poll on SQLite.

Every transaction that writes an event wakes PostgreSQL listeners once, at its commit (a
trigger on `events`, board/postgres/schema.py), so a reader on another machine wakes at
once instead of querying the server many times a second. SQLite has no such signal
across processes: on Linux the kernel says when its files are written (inotify), and
elsewhere a reader polls its cheap indexed query. `version` tells a periodic reader
whether anything was committed since it last looked.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import sqlite3
import sys
import time
from pathlib import Path
from typing import Protocol

from board.connection import Connection
from board.db import is_postgres

log = logging.getLogger(__name__)
# A file in the directory written, made, moved in or deleted (the -wal on every commit).
_WRITTEN = 0x2 | 0x100 | 0x80 | 0x200  # IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_DELETE


class ChangeWaiter(Protocol):
    pushes: bool  # True when a change wakes the waiter (no need to poll often)

    def wait(self, timeout: float) -> bool:
        """Block up to `timeout` seconds; True when the store may have changed."""
        ...

    def close(self) -> None: ...


class InotifyWaiter:
    """SQLite on Linux: the kernel says when a file in the room's directory is written
    (inotify; every commit writes the -wal), so a reader sleeps until then or its
    timeout instead of waking twenty times a second to ask."""

    pushes = True

    def __init__(self, directory: Path) -> None:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        if libc.inotify_add_watch(fd, os.fsencode(directory), _WRITTEN) < 0:
            error = ctypes.get_errno()
            os.close(fd)
            raise OSError(error, f"inotify_add_watch {directory}")
        self._fd = fd

    def wait(self, timeout: float) -> bool:
        ready, _, _ = select.select([self._fd], [], [], max(0.0, timeout))
        if not ready:
            return False
        with contextlib.suppress(BlockingIOError):
            while os.read(self._fd, 65536):  # every event so far: one wake for them all
                pass
        return True

    def close(self) -> None:
        os.close(self._fd)


class PollWaiter:
    """SQLite: nothing pushes; each wait sleeps one poll interval and says "look again"."""

    pushes = False

    def __init__(self, poll: float) -> None:
        self.poll = poll

    def wait(self, timeout: float) -> bool:
        time.sleep(max(0.0, min(self.poll, timeout)))
        return True

    def close(self) -> None:
        pass


def waiter(conn: Connection, poll: float = 0.05,
           directory: Path | None = None) -> ChangeWaiter:
    """A waiter for changes to the store `conn` is connected to (its own connection on
    PostgreSQL, listening from now on, so no commit after this call is missed). On
    SQLite whose files are in `directory`: told by inotify where the kernel has it."""
    if is_postgres(conn):
        from board.postgres.listen import Listener

        return Listener(conn.url)
    if directory is not None and sys.platform == "linux":
        try:
            return InotifyWaiter(directory)
        except (OSError, AttributeError) as error:  # no inotify here (or none left)
            log.info("store changes polled every %.2f s: %s", poll, error)
    return PollWaiter(poll)


def version(conn: Connection) -> tuple[int, int] | None:
    """A token that moves whenever the store `conn` reads may have changed: SQLite's
    `data_version` (moves when any other connection commits) with this connection's
    own `total_changes` (which it does not count). None on PostgreSQL, which cannot say
    so cheaply: its callers read as often as before."""
    if is_postgres(conn) or not isinstance(conn, sqlite3.Connection):
        return None
    return conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes
