"""This coordinator's place in a room that may span machines.

On SQLite the room lives on one machine and the coordinator serves every session. On a
shared (PostgreSQL) store each machine runs its own coordinator: it watches, polls and
types into the sessions of its own machine only, and beats so that the other machines
can tell `unreachable` from `idle` (board.machines).
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from pathlib import Path

from board import machines, marks, previews
from board.connection import Connection
from board.db import is_postgres
from board.errors import BullpenError
from board.models import Session

PREVIEW_EVERY = 2.0  # seconds between stored captures of one pane
PREVIEW_WIDTH = 200  # characters kept of each line


class Presence:
    def __init__(self, home: Path, conn: Connection) -> None:
        self.machine = machines.claim(conn, home)  # refused if another machine has its name
        self.shared = is_postgres(conn)
        # sessions without a machine (registered before rooms had machines) are the
        # owner's; in a room with no owner recorded, everyone's, as before
        self._owns_unplaced = self.shared and machines.owner_machine(conn) in (
            None, self.machine)
        self._last_beat = 0.0
        self._previewed: dict[str, tuple[float, str | None]] = {}  # session -> (at, hash)

    def mine(self, known: list[Session]) -> list[Session]:
        """The sessions this coordinator serves (on a shared store: this machine's, and
        those with no machine when this machine owns the room)."""
        if not self.shared:
            return known
        return [s for s in known if s.machine == self.machine
                or (s.machine is None and self._owns_unplaced)]

    def push_mark(self) -> str:
        """Where `up` leaves this machine's `push:` remote for its coordinator."""
        return f"push:{self.machine}"

    def pusher(self, conn: Connection, root: Path):
        """A Pusher for the `push:` remote `up` recorded, or None when there is none."""
        remote = marks.get_mark(conn, self.push_mark())
        if not remote:
            return None
        from workers.coordinator.pusher import Pusher

        return Pusher(root, remote)

    def beat_if_due(self, conn: Connection) -> None:
        """A heartbeat every BEAT_EVERY seconds, on a shared store only."""
        now = time.monotonic()
        if self.shared and now - self._last_beat >= machines.BEAT_EVERY:
            machines.beat(conn, self.machine)
            self._last_beat = now

    def stopped(self, conn: Connection) -> None:
        """Say that this machine's coordinator stopped (its beat goes): `room migrate`
        elsewhere need not wait for it to age out. Best effort: the store may be gone."""
        if self.shared:
            with contextlib.suppress(BullpenError, sqlite3.Error):
                machines.stop_beating(conn, self.machine)

    def preview_if_due(self, conn: Connection, session: str, snap) -> None:
        """On a shared store, keep a short cleaned capture of the pane for the other
        machines' dashboards: at most every PREVIEW_EVERY seconds, only when it changed."""
        if not self.shared or snap is None or snap.content_hash is None:
            return
        now = time.monotonic()
        at, digest = self._previewed.get(session, (0.0, None))
        if digest == snap.content_hash or now - at < PREVIEW_EVERY:
            return
        from workers.tmux.sanitize import clean

        lines = [clean(line, limit=PREVIEW_WIDTH) for line in snap.last_lines]
        previews.store(conn, session, self.machine, lines)
        self._previewed[session] = (now, snap.content_hash)
