"""The coordinator: one process per room that watches, dispatches and delivers.

It tails the store's events by id, polls every pane with one tmux call per tick,
records each session's status, types pending notes into idle panes, runs the file
watcher, and turns events into pings. A lock file keeps it single; `up` restarts it.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from pathlib import Path

from board import alerts, events, marks, reads, sessions, wakeup
from board.db import connect, write
from board.home import DB_NAME
from board.integrity import check_after_unclean_stop, mark_clean_stop
from board.models import Session
from board.room import check_store_present
from board.vocabulary import MAIN_CHECKOUT, DesiredState, EventKind, ReadSource
from workers.coordinator import catch_up, guard, missed_edits, missed_reads
from workers.coordinator.delivery import Deliverer
from workers.coordinator.lock import LOCK_NAME, RoomLock, is_running, lock_path
from workers.coordinator.pings import Dispatcher
from workers.coordinator.poll import PanePoller, shown_state
from workers.coordinator.presence import Presence
from workers.coordinator.status import Status, StatusTracker
from workers.tmux import layout
from workers.tmux.server import RoomServer

__all__ = ["LOCK_NAME", "Coordinator", "RoomGone", "is_running", "lock_path"]

log = logging.getLogger(__name__)

EVENT_TICK = 0.05  # seconds between looks at the event log (a cheap indexed query)
PANE_TICK = 0.25  # seconds between pane polls (one tmux process each)
ACTIVITY_EVERY = 5.0  # seconds between writes of a busy session's last activity
HOUSEKEEPING_EVERY = 1.0  # seconds between checks that the lock and db are still ours
WATCH_EVENTS = {EventKind.SESSION_REGISTERED, EventKind.SESSION_UPDATED}
# Seconds without session changes before the watch set is rebuilt: `up` registers many
# sessions in a row, and each rebuild rescans every worktree.
RETARGET_SETTLE = 0.5


class RoomGone(Exception):
    """The room's lock or database is no longer this coordinator's: it must stop."""


class Coordinator:
    def __init__(self, home: Path, server: RoomServer | None = None,
                 idle_after: float = 1.5, watch: bool = True,
                 lock: RoomLock | None = None) -> None:
        self.home = home
        self.root = home.parent
        self.db_path = home / DB_NAME
        check_store_present(home)  # a lost database is reported, not silently recreated
        self.conn = connect(self.db_path)
        check_after_unclean_stop(self.conn, self.db_path)
        self.changes = wakeup.waiter(self.conn, EVENT_TICK)  # PostgreSQL: LISTEN/NOTIFY
        self.presence = Presence(home, self.conn)  # its machine's sessions; heartbeats
        self.pusher = self.presence.pusher(self.conn, self.root)  # None without `push:`
        self._db_identity = _identity(self.db_path)
        self.lock = lock
        self.server = server or layout.server_for(self.root)
        self.tracker = StatusTracker(idle_after=idle_after)
        self.deliverer = Deliverer(self.conn, self.server)
        self.poller = PanePoller(self.conn, self.server, self.tracker, self.deliverer, home)
        self.dispatcher = Dispatcher(self.conn)
        self.watcher = self.radar = None  # the radar runs while the watcher does
        self.watch = watch
        self._fs_reads: dict[str, object] = {}  # session -> its FsReads, when opted in
        self._thread_conns = threading.local()  # watcher threads write on their own
        self._last_pane_poll = 0.0
        self._last_housekeeping = 0.0
        self._retarget_at: float | None = None  # when the watch set is due for a rebuild
        self._activity_written: dict[str, float] = {}
        self._caught_up = False
        self._targets: dict[str, Path] = {}  # what the watcher was last asked to watch
        self.watch_mark = missed_edits.WatchMark(home)  # edits nobody watched, and since when
        # Changes the watcher saw while the store could not take them: recorded later.
        self._unrecorded: deque = deque()
        # The start-up catch-up (main thread) and the watcher (its own thread) may both
        # meet one commit; recording under this lock, each checks the recorded head first.
        self._recording = threading.Lock()
        self.backoff = guard.Backoff()

    # -- lifecycle -----------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        """Run until `stop` is set. Store faults are retried with back-off (the state
        says so in the lock file, for `ls`); bad items are logged and skipped."""
        if self.watch:
            self._start_watcher()
        self._retarget_at = time.monotonic() + RETARGET_SETTLE
        try:
            while not stop.is_set():
                try:
                    self.tick()
                except RoomGone as gone:
                    log.error("coordinator stopped: %s", gone)
                    return
                except Exception as error:
                    if not guard.is_store_fault(error):
                        raise
                    self._store_fault(error)
                    stop.wait(self.backoff.failed())
                    continue
                if self.backoff.succeeded():
                    log.info("store writable again; carrying on")
                    self._set_state("ok")
                self._wait_for_work(stop)
        finally:
            self.changes.close()
            if self.pusher is not None:
                self.pusher.stop()
            if self.watcher is not None:
                if self.watcher.is_ready():
                    self.watch_mark.stopping()  # watched until this moment
                self.watcher.stop()
                self.radar.stop()
            for reader in self._fs_reads.values():
                reader.stop()
            mark_clean_stop(self.conn)
            self.presence.stopped(self.conn)  # others need not wait for its beat to age
            self.conn.close()

    def _my_sessions(self) -> list[Session]:
        return self.presence.mine(sessions.all_sessions(self.conn))

    def _wait_for_work(self, stop: threading.Event) -> None:
        """The next event tick, or (PostgreSQL pushes) the next change or pane poll."""
        if self.changes.pushes:
            self.changes.wait(max(0.01, self._last_pane_poll + PANE_TICK - time.monotonic()))
        else:
            stop.wait(EVENT_TICK)

    def tick(self) -> None:
        """Apply new events; poll panes and deliver when it is time."""
        now = time.monotonic()
        if now - self._last_housekeeping >= HOUSEKEEPING_EVERY:
            self._last_housekeeping = now
            self._check_room()
        self.presence.beat_if_due(self.conn)
        if not self._caught_up:
            # reads first: a commit made meanwhile alerts the sessions that had read it
            missed_reads.catch_up_reads(self.conn, self.home, self._my_sessions())
            self.catch_up_commits()
            self._caught_up = True
        self._record_unrecorded()
        self._apply_events()
        if self._retarget_at is not None and now >= self._retarget_at:
            self._retarget_at = None
            self._retarget()
        self._follow_watch(now)
        if now - self._last_pane_poll >= PANE_TICK:
            self._last_pane_poll = now
            self._poll_panes()

    def _check_room(self) -> None:
        """Stop when the database file was deleted or replaced under us (the CLI would
        otherwise see one room and this process write another), or another coordinator
        took over the lock."""
        if _identity(self.db_path) != self._db_identity:
            raise RoomGone(f"{self.db_path} was deleted or replaced; restore it from a"
                           " backup or run bullpen doctor, then bullpen up")
        if self.lock is not None and not self.lock.held():
            raise RoomGone("its lock file was replaced and another coordinator holds it")

    def _store_fault(self, error: BaseException) -> None:
        state = f"store not writable — {' '.join(str(error).split()) or type(error).__name__}"
        if self.lock is None or self.lock.state != state:
            log.error("coordinator: %s; retrying with back-off", state)
        self._set_state(state)

    def _set_state(self, state: str) -> None:
        if self.lock is not None:
            self.lock.write_state(state)

    # -- events --------------------------------------------------------------------------

    def _apply_events(self) -> None:
        batch = events.since(self.conn, self.dispatcher.cursor, limit=500)
        if not batch:
            return
        retarget = False
        for event in batch:
            try:
                self._apply(event)
            except Exception as error:
                if guard.is_store_fault(error):
                    self.dispatcher.save()  # what was done stays done; retry from here
                    raise
                log.error("event %d (%s) skipped: %s", event.id, event.kind, guard.reason(error))
            self.dispatcher.cursor = event.id
            retarget |= event.kind in WATCH_EVENTS
        self.dispatcher.save()
        if retarget:
            self._retarget_at = time.monotonic() + RETARGET_SETTLE

    def _apply(self, event) -> None:
        self.dispatcher.handle(event)
        if self.radar is not None:  # the conflict radar: what this event may have changed
            self.radar.heard(event)
        if event.kind == EventKind.NOTE_SENT:
            self._last_pane_poll = 0.0  # a note waits: look at the panes now, not next tick
        if (event.kind == EventKind.CHANGE_RECORDED and event.data.get("commit")
                and event.session):
            marks.set_mark(self.conn, catch_up.head_mark(event.session), event.data["commit"])

    def catch_up_commits(self) -> None:
        """Commits made while no coordinator ran are recorded now (alerts and pings follow)."""
        with self._recording:
            catch_up.catch_up_commits(self.conn, self.root, self._my_sessions())
        for session in self._my_sessions() if self.pusher is not None else ():
            self.pusher.push_session(self.conn, session.name)  # commits made while down

    # -- panes ---------------------------------------------------------------------------

    def _poll_panes(self) -> None:
        running = [s for s in self._my_sessions() if s.desired == DesiredState.RUNNING]
        seen = self.poller.observe(running)
        for session in running:
            try:
                self._poll_one(session, seen)
            except Exception as error:
                if guard.is_store_fault(error):
                    raise
                log.error("session %s skipped this tick: %s", session.name,
                          guard.reason(error))

    def _poll_one(self, session: Session, seen) -> None:
        """Record one session's state (and why), then type, hold or announce its notes."""
        status, code, reason = shown_state(seen.states.get(session.name))
        sessions.set_status(self.conn, session.name, status, code,
                            activity_at=self._activity(session.name, status), reason=reason)
        self.presence.preview_if_due(self.conn, session.name, seen.panes.get(session.name))
        self.poller.deliver(session, seen)

    def _activity(self, name: str, status: str) -> float | None:
        """Now, for a working session whose last activity is older than the throttle;
        else None (no write each tick for every busy session)."""
        now = time.time()
        if status != Status.WORKING or now - self._activity_written.get(name, 0) < ACTIVITY_EVERY:
            return None
        self._activity_written[name] = now
        return now

    # -- the watcher ---------------------------------------------------------------------

    def _start_watcher(self) -> None:
        from workers.coordinator.radar import Radar
        from workers.coordinator.watcher import Watcher

        self.watcher = Watcher(self.root, on_change=self._on_change,
                               known_head=self._known_head)
        self.watcher.start()
        self.radar = Radar(self.root, lambda: connect(self.db_path), self.presence.mine).start()

    def _retarget(self) -> None:
        """Watch the main checkout and every session's worktree; read-watch opted-in ones."""
        known = self._my_sessions()
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

    def _follow_watch(self, now: float) -> None:
        """Once the first watch has begun, record the edits no coordinator watched (a
        store fault retries them all on the next tick); then keep marking it watched."""
        if self.watcher is not None and self._targets and self.watcher.is_ready():
            self.watch_mark.follow(self._targets, now, self._record_or_skip)

    def _known_head(self, source: str) -> str | None:
        """The head last recorded for a session's checkout (none for the main checkout)."""
        if source == MAIN_CHECKOUT:
            return None
        return catch_up.recorded_head(self._thread_conn(), source)

    def _thread_conn(self):
        """This thread's own connection (sqlite3 connections are not shared across threads)."""
        conn = getattr(self._thread_conns, "conn", None)
        if conn is None:
            conn = self._thread_conns.conn = connect(self.home / DB_NAME)
        return conn

    def _on_change(self, batch) -> None:
        """Record a watcher batch (on the watcher's thread); if the store cannot take it,
        the main loop records it once the store is writable again."""
        try:
            self._record(self._thread_conn(), batch)
        except Exception as error:
            if guard.is_store_fault(error):
                self._unrecorded.append(batch)
            else:
                log.error("change in %s skipped: %s", batch.source, guard.reason(error))

    def _record_unrecorded(self) -> None:
        while self._unrecorded:
            self._record_or_skip(self._unrecorded[0])
            self._unrecorded.popleft()

    def _record_or_skip(self, batch) -> None:
        """Record a batch on the main thread, else log and skip it (store faults raise)."""
        try:
            self._record(self.conn, batch)
        except Exception as error:
            if guard.is_store_fault(error):
                raise
            log.error("change in %s skipped: %s", batch.source, guard.reason(error))

    def _record(self, conn, batch) -> None:
        # The change and its head commit together (else catch-up records it again).
        with self._recording, write(conn):
            if batch.commit and marks.get_mark(conn, catch_up.head_mark(batch.source)) \
                    == batch.commit:
                return  # the start-up catch-up recorded this commit already
            alerts.record_change(conn, batch.source, batch.paths, batch.commit,
                                 batch.message, batch.as_edited)
            if batch.commit:
                marks.set_mark(conn, catch_up.head_mark(batch.source), batch.commit)
        if batch.commit and self.pusher is not None:
            self.pusher.push_session(conn, batch.source)

    def _recorder(self, session: str):
        def record(paths: list[str]) -> None:
            reads.record(self._thread_conn(), session, paths, source=ReadSource.FS)
        return record


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino
