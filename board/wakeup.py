"""Waiting for the store to change: LISTEN/NOTIFY on PostgreSQL, a short poll on SQLite.

Every transaction that writes an event wakes PostgreSQL listeners once, at its commit (a
trigger on `events`, board/postgres/schema.py), so a reader on another machine wakes at
once instead of querying the server many times a second. SQLite has no such signal
across processes; there a reader polls its cheap indexed query, and `version` tells a
periodic reader whether anything was committed since it last looked.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Protocol

from board.connection import Connection
from board.db import is_postgres


class ChangeWaiter(Protocol):
    pushes: bool  # True when a change wakes the waiter (no need to poll often)

    def wait(self, timeout: float) -> bool:
        """Block up to `timeout` seconds; True when the store may have changed."""
        ...

    def close(self) -> None: ...


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


def waiter(conn: Connection, poll: float = 0.05) -> ChangeWaiter:
    """A waiter for changes to the store `conn` is connected to (its own connection on
    PostgreSQL, listening from now on, so no commit after this call is missed)."""
    if is_postgres(conn):
        from board.postgres.listen import Listener

        return Listener(conn.url)
    return PollWaiter(poll)


def version(conn: Connection) -> tuple[int, int] | None:
    """A token that moves whenever the store `conn` reads may have changed: SQLite's
    `data_version` (moves when any other connection commits) with this connection's
    own `total_changes` (which it does not count). None on PostgreSQL, which cannot say
    so cheaply: its callers read as often as before."""
    if is_postgres(conn) or not isinstance(conn, sqlite3.Connection):
        return None
    return conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes
