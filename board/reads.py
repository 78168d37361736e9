"""Which session read which file, and when: the watcher's raw material."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping

from board import events
from board.connection import Connection
from board.db import write
from board.vocabulary import EventKind, ReadSource


def record(conn: Connection, session: str, paths: Iterable[str],
           source: ReadSource = ReadSource.EXPLICIT) -> int:
    """Record that `session` read each repo-relative path now; returns how many."""
    now = time.time()
    return record_at(conn, session, {path: now for path in paths}, source)


def record_at(conn: Connection, session: str, read_at: Mapping[str, float],
              source: ReadSource) -> int:
    """Record that `session` read each repo-relative path at its epoch time (one event
    for them all); returns how many."""
    if source not in ReadSource.__members__.values():
        raise ValueError(f"unknown read source {source!r}")
    unique = sorted(read_at)
    if not unique:
        return 0
    with write(conn):
        conn.executemany(
            "INSERT INTO reads (session, path, source, read_at) VALUES (?, ?, ?, ?)",
            [(session, path, source, read_at[path]) for path in unique],
        )
        events.emit(conn, EventKind.READ_RECORDED, session, None, paths=unique[:20],
                     count=len(unique), source=source)
    return len(unique)


def readers(conn: Connection, path: str, before: float) -> dict[str, float]:
    """Sessions that read `path` before `before`, with their latest such read."""
    rows = conn.execute(
        "SELECT session, max(read_at) FROM reads WHERE path = ? AND read_at <= ?"
        " GROUP BY session", (path, before))
    return {session: read_at for session, read_at in rows}


def of_session(conn: Connection, session: str) -> list[tuple[str, float]]:
    """The paths a session read, with its latest read of each, newest first."""
    rows = conn.execute(
        "SELECT path, max(read_at) AS at FROM reads WHERE session = ? GROUP BY path"
        " ORDER BY at DESC", (session,))
    return [(path, at) for path, at in rows]


def latest(conn: Connection, session: str) -> float | None:
    """When `session`'s newest recorded read was, or None before its first."""
    row = conn.execute("SELECT max(read_at) FROM reads WHERE session = ?", (session,)).fetchone()
    return row[0] if row else None
