"""Remote preview: the last lines of each pane, as its own machine's coordinator saw them,
so a dashboard on another machine can show what a remote session is doing.

Stored in `meta` (one row per session, overwritten), cleaned of control characters by the
writer, throttled there: a short capture, never a log.
"""

from __future__ import annotations

import json
import time

from board.connection import Connection
from board.db import write
from board.records import record

MAX_LINES = 20
_KEY = "preview:"


@record(frozen=True)
class Preview:
    session: str
    machine: str
    lines: tuple[str, ...]
    captured_at: float


def store(conn: Connection, session: str, machine: str, lines: list[str]) -> None:
    value = json.dumps({"machine": machine, "at": time.time(), "lines": lines[-MAX_LINES:]})
    with write(conn):
        conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key)"
                     " DO UPDATE SET value = excluded.value", (_KEY + session, value))


def get(conn: Connection, session: str) -> Preview | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (_KEY + session,)).fetchone()
    if row is None:
        return None
    data = json.loads(row[0])
    return Preview(session, data["machine"], tuple(data["lines"]), data["at"])
