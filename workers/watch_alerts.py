"""The glue between the watcher and the board: one change batch -> alerts for its readers."""

from __future__ import annotations

import sqlite3

from board import alerts
from board.models import Alert
from workers.change_filter import ChangeBatch


def record_batch(conn: sqlite3.Connection, batch: ChangeBatch) -> list[Alert]:
    """Store the batch as one change; every other session that read one of its paths
    before it (and has no unseen alert for that path) gets one alert note."""
    return alerts.record_change(conn, batch.source, batch.paths, batch.commit, batch.message)
