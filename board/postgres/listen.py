"""LISTEN on the room's events channel from a connection of its own."""

from __future__ import annotations

import time
from typing import Any

from board.errors import StoreFault
from board.postgres.connection import open_raw
from board.postgres.pairing_sql import CHANNEL_KEY
from board.postgres.schema import EVENTS_CHANNEL


def channel(raw: Any) -> str:
    """The room's own events channel: a name only the room's members can read (a guest
    could LISTEN on a name it can guess, and PostgreSQL cannot forbid it per channel)."""
    row = raw.execute("SELECT value FROM meta WHERE key = %s", (CHANNEL_KEY,)).fetchone()
    return row[0] if row else EVENTS_CHANNEL


class Listener:
    """Wakes when a transaction that wrote events commits (board.wakeup.ChangeWaiter).

    If the server goes away the listener says "look again" after each timeout and
    listens anew once it is back, so a waiting reader never misses the restart."""

    pushes = True

    def __init__(self, url: str) -> None:
        self.url = url
        self._conn: Any = None  # psycopg's connection (open_raw); None while the server is away
        self._listen()

    def _listen(self) -> None:
        conn = open_raw(self.url)
        conn.execute(f'LISTEN "{channel(conn)}"')
        self._conn = conn

    def wait(self, timeout: float) -> bool:
        import psycopg

        try:
            if self._conn is None or self._conn.broken:
                self._listen()
                return True  # commits while we were not listening: look now
            return any(True for _ in self._conn.notifies(timeout=max(timeout, 0.0),
                                                          stop_after=1))
        except (psycopg.OperationalError, StoreFault):
            self._conn = None
            time.sleep(max(timeout, 0.0))
            return True

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
