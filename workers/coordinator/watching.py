"""The coordinator's eyes on the checkouts: the file watcher, the conflict radar and the
opt-in filesystem reads, and the recording of what they see into the store.

The watcher calls back on its own thread, which writes on its own connection (sqlite3
connections are not shared across threads). A batch the store cannot take (a full disk)
waits here until the main loop records it; edits made while no coordinator watched are
recorded once the first watch has begun (missed_edits).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from board import alerts, marks, reads
from board.connection import Connection
from board.db import connect, write
from board.home import DB_NAME
from board.models import Event, Session
from board.vocabulary import MAIN_CHECKOUT, ReadSource
from workers.coordinator import catch_up, guard, missed_edits
from workers.coordinator.change_filter import ChangeBatch
from workers.coordinator.presence import Presence

if TYPE_CHECKING:  # imported when first used: watchfiles is slow to import
    from workers.coordinator.fs_reads import FsReads
    from workers.coordinator.pusher import Pusher
    from workers.coordinator.radar import Radar
    from workers.coordinator.watcher import Watcher

log = logging.getLogger(__name__)


class Watching:
    """Starts, retargets and stops the watcher, the radar and each session's opted-in
    filesystem reads; records each change batch once."""

    def __init__(self, home: Path, conn: Connection, presence: Presence,
                 pusher: Pusher | None) -> None:
        self.home = home
        self.root = home.parent
        self.conn = conn  # the main loop's connection
        self.presence = presence
        self.pusher = pusher
        self.watcher: Watcher | None = None
        self.radar: Radar | None = None  # the radar runs while the watcher does
        self._fs_reads: dict[str, FsReads] = {}  # session -> its reader, when opted in
        self._thread_conns = threading.local()  # watcher threads write on their own
        self._targets: dict[str, Path] = {}  # what the watcher was last asked to watch
        self.watch_mark = missed_edits.WatchMark(home)  # edits nobody watched, and since when
        # Changes the watcher saw while the store could not take them: recorded later.
        self._unrecorded: deque[ChangeBatch] = deque()
        # The start-up catch-up (main thread) and the watcher (its own thread) may both
        # meet one commit; recording under this lock, each checks the recorded head first.
        self.recording = threading.Lock()

    def start(self) -> None:
        """Start the watcher (on no target yet: `retarget` gives them) and the radar."""
        from workers.coordinator.radar import Radar
        from workers.coordinator.watcher import Watcher

        self.watcher = Watcher(self.root, on_change=self._on_change,
                               known_head=self._known_head)
        self.watcher.start()
        self.radar = Radar(self.root, lambda: connect(self.home / DB_NAME),
                           self.presence.mine)
        self.radar.start()

    def stop(self) -> None:
        """Stop everything started, marking the checkouts watched until now."""
        if self.watcher is not None:
            if self.watcher.is_ready():
                self.watch_mark.stopping(self.watcher.holding)  # watched until now
            self.watcher.stop()
        if self.radar is not None:
            self.radar.stop()
        for reader in self._fs_reads.values():
            reader.stop()

    def heard(self, event: Event) -> None:
        """Pass one event of the log to the radar (a change may move a prediction)."""
        if self.radar is not None:
            self.radar.heard(event)

    def retarget(self, known: list[Session]) -> None:
        """Watch the main checkout and every session's worktree; read-watch opted-in ones."""
        worktrees = {s.name: Path(s.worktree) for s in known
                     if s.worktree and Path(s.worktree).is_dir()}
        self._targets = {MAIN_CHECKOUT: self.root, **worktrees}
        if self.watcher is not None:
            self.watcher.set_targets(self._targets)
        opted_in = {s.name for s in known if s.fs_reads}
        for name in set(self._fs_reads) - (opted_in & set(worktrees)):
            self._fs_reads.pop(name).stop()
        for name in (opted_in & set(worktrees)) - set(self._fs_reads):
            from workers.coordinator.fs_reads import FsReads

            reader = FsReads(worktrees[name], on_reads=self._recorder(name))
            reader.start()
            self._fs_reads[name] = reader

    def follow(self, now: float) -> None:
        """Once the first watch has begun, record the edits no coordinator watched (a
        store fault retries them all on the next tick); then mark the writes it saw."""
        if self.watcher is not None and self._targets and self.watcher.is_ready():
            # bursts first: a burst is counted after its edits were held, so `holding`
            # read next still sees them (or they were reported meanwhile)
            self.watch_mark.follow(self._targets, now, self._record_or_skip,
                                   self.watcher.bursts, self.watcher.holding)

    def record_unrecorded(self) -> None:
        """Record, on the main loop, the batches the store could not take before."""
        while self._unrecorded:
            self._record_or_skip(self._unrecorded[0])
            self._unrecorded.popleft()

    def _known_head(self, source: str) -> str | None:
        """The head last recorded for a session's checkout (none for the main checkout)."""
        if source == MAIN_CHECKOUT:
            return None
        return catch_up.recorded_head(self._thread_conn(), source)

    def _thread_conn(self) -> Connection:
        """This thread's own connection (sqlite3 connections are not shared across threads)."""
        conn: Connection | None = getattr(self._thread_conns, "conn", None)
        if conn is None:
            conn = self._thread_conns.conn = connect(self.home / DB_NAME)
        return conn

    def _on_change(self, batch: ChangeBatch) -> None:
        """Record a watcher batch (on the watcher's thread); if the store cannot take it,
        the main loop records it once the store is writable again."""
        try:
            self._record(self._thread_conn(), batch)
        except Exception as error:
            if guard.is_store_fault(error):
                self._unrecorded.append(batch)
            else:
                log.error("change in %s skipped: %s", batch.source, guard.reason(error))

    def _record_or_skip(self, batch: ChangeBatch) -> None:
        """Record a batch on the main thread; one it cannot take is logged and skipped
        (store faults are raised, for the loop's back-off)."""
        try:
            self._record(self.conn, batch)
        except Exception as error:
            if guard.is_store_fault(error):
                raise
            log.error("change in %s skipped: %s", batch.source, guard.reason(error))

    def _record(self, conn: Connection, batch: ChangeBatch) -> None:
        # The change and the head it reached commit together: a kill between the two
        # would make the next start-up's catch-up record the same commit again.
        with self.recording, write(conn):
            if batch.commit and marks.get_mark(conn, catch_up.head_mark(batch.source)) \
                    == batch.commit:
                return  # the start-up catch-up recorded this commit already
            alerts.record_change(conn, batch.source, batch.paths, batch.commit,
                                 batch.message, batch.as_edited)
            if batch.commit:
                marks.set_mark(conn, catch_up.head_mark(batch.source), batch.commit)
        if batch.commit and self.pusher is not None:
            self.pusher.push_session(conn, batch.source)

    def _recorder(self, session: str) -> Callable[[list[str]], None]:
        def record(paths: list[str]) -> None:
            reads.record(self._thread_conn(), session, paths, source=ReadSource.FS)
        return record
