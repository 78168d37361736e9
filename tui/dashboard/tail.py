"""Tailing the store's event log from a thread of its own (no Textual in here).

Every `interval` the thread asks SQLite for the newest event id — one rowid lookup —
and only when it moved reads the events and the rows they touch, then hands a
`RoomDelta` to the callback. Idle, that is ~15 cheap queries a second and nothing else.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from board import events, machines, views, wakeup
from board.connection import Connection
from board.db import connect, is_postgres
from board.errors import BullpenError
from tui.dashboard import feed
from tui.dashboard.feed import RoomDelta

POLL_SECONDS = 0.03
BATCH = 2000
PANEL_SECONDS = 0.25  # sessions/alerts rows are re-read at most this often


class EventTail:
    """A daemon thread: one snapshot, then a delta for each batch of new events."""

    def __init__(self, db_path: Path, on_delta: Callable[[RoomDelta], object],
                 on_error: Callable[[Exception], object] | None = None,
                 interval: float = POLL_SECONDS) -> None:
        self.db_path = db_path
        self.on_delta = on_delta
        self.on_error = on_error
        self.interval = interval
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bullpen-tail", daemon=True)

    def start(self) -> None:
        """Start tailing (the first delta is the snapshot)."""
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Ask the thread to finish and wait for it briefly."""
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def poke(self) -> None:
        """Check for events now (after the dashboard wrote something itself)."""
        self._wake.set()

    def _run(self) -> None:
        try:
            conn = connect(self.db_path)
        except (BullpenError, sqlite3.Error) as error:  # a missing or foreign database: say so
            self._report(error)
            return
        try:
            self._listen(conn)
            # Across machines, sessions are shown as this machine sees them (`ls` too).
            here = machines.local_name(self.db_path.parent) if is_postgres(conn) else None
            snapshot = feed.load_snapshot(conn, here)
            self.on_delta(snapshot)
            self._loop(conn, snapshot.last_event, snapshot.last_note, here)
        finally:
            conn.close()

    def _listen(self, conn: Connection) -> None:
        """On PostgreSQL, commits wake the loop (LISTEN/NOTIFY) and it stops polling the
        server every few milliseconds: it looks again only at the panels' pace."""
        changes = wakeup.waiter(conn)
        if not changes.pushes:
            return
        self.interval = max(self.interval, PANEL_SECONDS)

        def relay() -> None:
            try:
                while not self._stop.is_set():
                    if changes.wait(1.0):
                        self._wake.set()
            finally:
                changes.close()

        threading.Thread(target=relay, name="bullpen-tail-listen", daemon=True).start()

    def _loop(self, conn: Connection, last_event: int, last_note: int,
              here: str | None = None) -> None:
        sessions_due = alerts_due = deliveries_due = False  # waiting for their throttle
        panels_at = 0.0
        while not self._stop.is_set():
            self._wake.wait(self.interval)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                if views.last_event_id(conn) > last_event:
                    delta = feed.load_delta(conn, events.since(conn, last_event, BATCH),
                                            last_note)
                elif sessions_due or alerts_due or deliveries_due:
                    delta = feed.RoomDelta(last_event=last_event, last_note=last_note)
                elif here is not None and time.monotonic() - panels_at >= machines.BEAT_EVERY:
                    # A beat writes no event: a machine falling silent shows at its pace.
                    sessions_due = True
                    delta = feed.RoomDelta(last_event=last_event, last_note=last_note)
                else:
                    continue
                sessions_due |= delta.sessions_dirty
                alerts_due |= delta.alerts_dirty
                deliveries_due |= delta.deliveries_dirty
                if (sessions_due or alerts_due or deliveries_due) and \
                        time.monotonic() - panels_at >= PANEL_SECONDS:
                    if delta.stream or delta.tasks or delta.removed_tasks:
                        # What happened is drawn first; the panels' whole tables follow.
                        self.on_delta(delta)
                        last_event, last_note = delta.last_event, delta.last_note
                        delta = feed.RoomDelta(last_event=last_event, last_note=last_note)
                    feed.fill_panels(conn, delta, sessions_due, alerts_due, deliveries_due,
                                     here)
                    sessions_due = alerts_due = deliveries_due = False
                    panels_at = time.monotonic()
            except sqlite3.Error as error:  # e.g. a locked file; try again next tick
                self._report(error)
                continue
            last_event, last_note = delta.last_event, delta.last_note
            self.on_delta(delta)

    def _report(self, error: Exception) -> None:
        if self.on_error is not None:
            self.on_error(error)
