"""Checking the store after a coordinator stopped without cleaning up (killed, power
loss): `PRAGMA quick_check` then, so damage is found at start-up rather than mid-run."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from board import marks
from board.connection import Connection
from board.db import StoreFault, is_postgres

log = logging.getLogger(__name__)

RUNNING_MARK = "coordinator_running"  # "1" while a coordinator runs, "0" after a clean stop


def quick_check(conn: Connection) -> str | None:
    """None when SQLite's quick check passes; else its first complaint."""
    if is_postgres(conn):
        return None  # PostgreSQL checks its own pages
    try:
        rows = [row[0] for row in conn.execute("PRAGMA quick_check(5)").fetchall()]
    except sqlite3.DatabaseError as error:
        return " ".join(str(error).split())
    return None if rows == ["ok"] else "; ".join(rows)


def check_after_unclean_stop(conn: Connection, path: Path) -> None:
    """Raise StoreFault if the last coordinator did not stop cleanly and the store is
    damaged; then mark this one running."""
    if marks.get_mark(conn, RUNNING_MARK) == "1":
        problem = quick_check(conn)
        if problem:
            raise StoreFault(f"the store {path} is damaged ({problem}); run bullpen doctor")
        log.info("last coordinator did not stop cleanly; the store's quick check passed")
    marks.set_mark(conn, RUNNING_MARK, "1")


def mark_clean_stop(conn: Connection) -> None:
    """Best effort: a store that cannot take it gets checked at the next start."""
    try:
        marks.set_mark(conn, RUNNING_MARK, "0")
    except Exception as error:  # noqa: BLE001 - stopping must not fail
        log.info("could not mark the clean stop: %s", error)
