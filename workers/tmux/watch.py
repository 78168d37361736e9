"""Following a room's panes through one control-mode client instead of polling them.

`snapshot_all` captures every pane each tick (with 200 idle panes: 200 screens four
times a second, plus a tmux process). `PaneWatch.snapshot` gives the same snapshots,
but captures only the panes tmux said had output (`%output`), that are new, or whose
mode changed; the others keep their last screen. Pane rows and clients are asked over
the control client, so no process is started. `quiet()` says nothing happened at all,
so the caller may skip a tick. A pane that died, which tmux does not announce as output,
comes through the client's subscription. Another program taking a pane's terminal in
silence shows in the pane list, read at every snapshot (the coordinator takes one each
tick a note waits); every `SAFETY_EVERY` seconds every pane is captured anyway.

Without a control client (the room's session gone, tmux refusing, the client ended)
it falls back to `snapshot_all`, and tries to attach again every `RETRY_EVERY` seconds.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace

from workers.tmux.control import ControlClient
from workers.tmux.panes import (
    CLIENTS_FORMAT,
    ROW_FORMAT,
    PaneSnapshot,
    content_digest,
    key_at,
    parse_row,
    snapshot_all,
    with_screen,
)
from workers.tmux.server import DEFAULT_SESSION, RoomServer, TmuxError

log = logging.getLogger(__name__)

SAFETY_EVERY = 30.0  # seconds between captures of every pane, announced or not
RETRY_EVERY = 2.0  # seconds between attempts to attach a control client


class PaneWatch:
    """Snapshots of every pane, reading only the screens that changed."""

    def __init__(self, server: RoomServer, session: str = DEFAULT_SESSION,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.server = server
        self.session = session
        self.clock = clock
        self.client: ControlClient | None = None
        self._last: dict[str, PaneSnapshot] = {}
        self._full_at = float("-inf")
        self._retry_at = float("-inf")
        self._pending: set[str] = set()  # announced and not yet read
        self._moved = True
        self.captures = 0  # screens read (counters for tests and the bench)
        self.skipped = 0  # observations found quiet (nothing read)

    def quiet(self) -> bool:
        """True when a control client follows the panes and nothing was announced since
        the last snapshot, nor is the safety capture due."""
        client = self._client()
        if client is None:
            return False
        dirty, moved = client.take_changes()
        self._pending |= dirty
        self._moved |= moved
        quiet = not self._pending and not self._moved and \
            self.clock() - self._full_at < SAFETY_EVERY
        self.skipped += quiet
        return quiet

    def snapshot(self) -> dict[str, PaneSnapshot]:
        """Every pane by id, as `snapshot_all` returns them ({} when tmux is down)."""
        client = self._client()
        if client is not None:
            try:
                return self._follow(client)
            except TmuxError as error:
                log.info("following the panes by polling: %s", error)
                self._drop()
        self._last = snapshot_all(self.server)
        self.captures += len(self._last)
        return self._last

    def close(self) -> None:
        self._drop()

    def _follow(self, client: ControlClient) -> dict[str, PaneSnapshot]:
        dirty, moved = client.take_changes()
        pending, self._pending = self._pending | dirty, set()
        self._moved = False
        now = self.clock()
        full = now - self._full_at >= SAFETY_EVERY
        rows_out, clients_out = client.commands([
            ["list-panes", "-a", "-F", ROW_FORMAT], ["list-clients", "-F", CLIENTS_FORMAT]])
        if rows_out is None:
            raise TmuxError("list-panes failed on the control client")
        keys: dict[str, float] = {}
        for line in clients_out or []:
            key_at(keys, line)
        rows = {}
        for line in rows_out:
            row = parse_row(line)
            if row is not None:
                rows[row.pane_id] = replace(row, key_at=keys.get(row.pane_id))
        # A pane whose program in front changed is read again even if it printed nothing:
        # who owns its terminal is known only from a read (the subscription no longer
        # reports the change, and the row below would carry the new name over the old read).
        wanted = [pane for pane, row in rows.items()
                  if full or pane in pending or pane not in self._last
                  or row.current_command != self._last[pane].current_command]
        screens = client.commands([["capture-pane", "-p", "-t", pane] for pane in wanted])
        self.captures += len(wanted)
        snapshots = {}
        for pane_id, row in rows.items():
            last = self._last.get(pane_id)
            if pane_id in wanted:
                text = screens[wanted.index(pane_id)]
                snapshots[pane_id] = row if text is None else self._read(row, last, text)
            elif last is not None:  # no output: its screen and who is in front are as read
                snapshots[pane_id] = replace(row, content_hash=last.content_hash,
                                             last_lines=last.last_lines, screen=last.screen,
                                             in_front=last.in_front)
            else:
                snapshots[pane_id] = row
        if full:
            self._full_at = now
        self._last = snapshots
        self.server.pane_ids_hint = list(rows)
        return snapshots

    @staticmethod
    def _read(row: PaneSnapshot, last: PaneSnapshot | None, lines: list[str]) -> PaneSnapshot:
        text = "\n".join(lines)
        if last is not None and last.content_hash == content_digest(text) \
                and last.current_command == row.current_command:
            return replace(row, content_hash=last.content_hash, last_lines=last.last_lines,
                           screen=last.screen, in_front=last.in_front)
        return with_screen(row, text)

    def _client(self) -> ControlClient | None:
        if self.client is not None and not self.client.alive:
            self._drop()
        if self.client is None and self.clock() >= self._retry_at:
            self._retry_at = self.clock() + RETRY_EVERY
            if self.server.has_session(self.session):
                try:
                    self.client = ControlClient(self.server, self.session)
                except (OSError, TmuxError) as error:
                    log.info("no control client on %s: %s", self.session, error)
                self._moved = True
        return self.client

    def _drop(self) -> None:
        if self.client is not None:
            self.client.close()
        self.client = None
        self._moved = True
