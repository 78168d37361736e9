"""The coordinator: one process per room that watches, dispatches and delivers.

It tails the store's events by id, polls every pane with one tmux call per tick,
records each session's status, types pending notes into idle panes, runs the file
watcher and the radar (watching.py), keeps each session's spend and budget (spending.py),
and turns events into pings. A lock file keeps it
single; `up` restarts it.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path

from board import deliveries, events, marks, sessions, wakeup
from board.db import connect
from board.home import DB_NAME
from board.integrity import check_after_unclean_stop, mark_clean_stop
from board.models import Event, Session
from board.room import check_store_present
from board.vocabulary import DesiredState, EventKind
from workers.coordinator import catch_up, guard, missed_reads
from workers.coordinator.delivery import Deliverer
from workers.coordinator.lock import LOCK_NAME, RoomLock, is_running, lock_path
from workers.coordinator.notifier import Notifier
from workers.coordinator.pings import Dispatcher
from workers.coordinator.poll import Observation, PanePoller, shown_state
from workers.coordinator.presence import Presence
from workers.coordinator.remote_asks import AskAnswerer
from workers.coordinator.slots import SlotHands, SlotKeeper
from workers.coordinator.spending import Spending
from workers.coordinator.stamps import StoreFiles
from workers.coordinator.status import PaneStatus, Status, StatusTracker
from workers.coordinator.versions import VersionAsker
from workers.coordinator.watching import Watching
from workers.tmux import layout
from workers.tmux.server import RoomServer

__all__ = ["LOCK_NAME", "Coordinator", "RoomGone", "is_running", "lock_path"]

log = logging.getLogger(__name__)

EVENT_TICK = 0.05  # seconds between looks at the event log (a cheap indexed query)
EVENT_BATCH = 500  # events applied in one tick at most
PANE_TICK = 0.25  # seconds between pane polls (one tmux process each)
ACTIVITY_EVERY = 5.0  # seconds between writes of a busy session's last activity
HOUSEKEEPING_EVERY = 1.0  # seconds between checks that the lock and db are still ours
# The event log and the notes waiting are read when the store's files moved (stamps),
# and at least this often whatever they say: a backstop, nothing waits longer.
STORE_BACKSTOP = 1.0
WATCH_EVENTS = {EventKind.SESSION_REGISTERED, EventKind.SESSION_UPDATED,
                EventKind.SESSION_REMOVED}
# Seconds without session changes before the watch set is rebuilt: `up` registers many
# sessions in a row, and each rebuild rescans every worktree.
RETARGET_SETTLE = 0.5


class RoomGone(Exception):
    """The room's lock or database is no longer this coordinator's: it must stop."""


class Coordinator:
    def __init__(self, home: Path, server: RoomServer | None = None,
                 idle_after: float = 1.5, watch: bool = True,
                 lock: RoomLock | None = None, hands: SlotHands | None = None) -> None:
        self.home = home
        self.root = home.parent
        self.db_path = home / DB_NAME
        check_store_present(home)  # a lost database is reported, not silently recreated
        self.conn = connect(self.db_path)
        check_after_unclean_stop(self.conn, self.db_path)
        # PostgreSQL: LISTEN/NOTIFY; SQLite: inotify on the directory of its files (the
        # target's, for a database named by a symbolic link), a poll where there is none
        self.changes = wakeup.waiter(self.conn, EVENT_TICK, self.db_path.resolve().parent)
        self.presence = Presence(home, self.conn)  # its machine's sessions; heartbeats
        self.pusher = self.presence.pusher(self.conn, self.root)  # None without `push:`
        # other machines' operators ask this one to stop or restart its sessions
        self.asks = AskAnswerer(home, self.presence.machine) if self.presence.shared else None
        self._db_identity = _identity(self.db_path)
        self.lock = lock
        self.server = server or layout.server_for(self.root)
        self.tracker = StatusTracker(idle_after=idle_after)
        self.deliverer = Deliverer(self.conn, self.server)
        self.poller = PanePoller(self.conn, self.server, self.tracker, self.deliverer, home)
        self.dispatcher = Dispatcher(self.conn)
        self.versions = VersionAsker(home)  # each launch's `--version`, off its path
        self.watching = Watching(home, self.conn, self.presence, self.pusher)
        self.spending = Spending(self.conn, home)
        self.notifier = Notifier(home, self.conn)  # `notify:`; sends off this thread
        self.watch = watch
        self.slots = SlotKeeper(self.conn, home, hands)  # the warm cap (max_running)
        self._last_pane_poll = 0.0
        self._stirred = True  # events came since the last pane poll, or one is waited for
        self._last_housekeeping = 0.0
        self._store_files = StoreFiles(self.conn, self.db_path.resolve())
        self._store_read_at = float("-inf")
        self._events_due = True  # the store moved (or the backstop): read the event log
        self._waiting: set[str] | None = None  # who has notes waiting, as last read
        self._retarget_at: float | None = None  # when the watch set is due for a rebuild
        self._activity_written: dict[str, float] = {}
        self._caught_up = False
        self.backoff = guard.Backoff()

    # -- lifecycle -----------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        """Run until `stop` is set. Store faults are retried with back-off (the state
        says so in the lock file, for `ls`); bad items are logged and skipped."""
        if self.watch:
            self.watching.start()
        self._retarget_at = time.monotonic() + RETARGET_SETTLE
        try:
            while not stop.is_set():
                try:
                    self.tick()
                except RoomGone as gone:
                    log.error("coordinator stopped: %s", gone)
                    self.notifier.trouble(f"stopped: {gone}")
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
            self.notifier.stop()
            self.versions.stop()
            self.poller.close()
            if self.pusher is not None:
                self.pusher.stop()
            self.watching.stop()
            mark_clean_stop(self.conn)
            self.presence.stopped(self.conn)  # others need not wait for its beat to age
            self.conn.close()

    def _my_sessions(self) -> list[Session]:
        return self.presence.mine(sessions.all_sessions(self.conn))

    def _wait_for_work(self, stop: threading.Event) -> None:
        """The next change or pane poll when the store pushes (PostgreSQL's notices, or
        inotify), else the next event tick. Inotify can wake a look before the commit
        it announced is readable: while the store's files were just written, the loop
        looks each event tick too."""
        if self.changes.pushes:
            until = self._last_pane_poll + PANE_TICK - time.monotonic()
            self.changes.wait(max(0.01, min(until, EVENT_TICK) if self._store_files.racy
                                  else until))
        else:
            stop.wait(EVENT_TICK)

    def tick(self) -> None:
        """Apply new events; poll panes and deliver when it is time."""
        now = time.monotonic()
        if now - self._last_housekeeping >= HOUSEKEEPING_EVERY:
            self._last_housekeeping = now
            self._check_room()
            if self.asks is not None:
                self.asks.answer_due(self.conn)
            self.notifier.follow(self.conn)  # a failed landing writes no event
        self.presence.beat_if_due(self.conn)
        if not self._caught_up:
            # reads first: a commit made meanwhile alerts the sessions that had read it
            missed_reads.catch_up_reads(self.conn, self.home, self._my_sessions())
            self.catch_up_commits()
            self._caught_up = True
        self.watching.record_unrecorded()
        if self._store_files.moved() or now - self._store_read_at >= STORE_BACKSTOP:
            self._events_due, self._waiting = True, None
        if self._events_due:  # until read without a fault, and no batch is left
            self._store_read_at = now
            self._events_due = self._apply_events()
        if self._retarget_at is not None and now >= self._retarget_at:
            self._retarget_at = None
            self.watching.retarget(self._my_sessions())
        self.watching.follow(now)
        if now - self._last_pane_poll >= PANE_TICK:
            self._last_pane_poll = now
            self._poll_panes()
        if self.spending.due(now):
            self.spending.follow([s for s in self._my_sessions()
                                  if s.desired == DesiredState.RUNNING], now)

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
        self.notifier.trouble(None if state == "ok" else state)
        if self.lock is not None:
            self.lock.write_state(state)

    # -- events --------------------------------------------------------------------------

    def _apply_events(self) -> bool:
        """Apply the next events; True when more may be left (a full batch)."""
        batch = events.since(self.conn, self.dispatcher.cursor, limit=EVENT_BATCH)
        if not batch:
            return False
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
        self._stirred = True
        if retarget:
            self._retarget_at = time.monotonic() + RETARGET_SETTLE
        return len(batch) == EVENT_BATCH

    def _apply(self, event: Event) -> None:
        self.dispatcher.handle(event)
        self.watching.heard(event)
        self.spending.heard(event)
        self.notifier.heard(self.conn, event)
        if event.kind == EventKind.NOTE_SENT:
            self._last_pane_poll = 0.0  # a note waits: look at the panes now, not next tick
        if (event.kind == EventKind.CHANGE_RECORDED and event.data.get("commit")
                and event.session):
            marks.set_mark(self.conn, catch_up.head_mark(event.session), event.data["commit"])

    def catch_up_commits(self) -> None:
        """Commits made while no coordinator ran are recorded now (alerts and pings follow)."""
        with self.watching.recording:
            catch_up.catch_up_commits(self.conn, self.root, self._my_sessions())
        for session in self._my_sessions() if self.pusher is not None else ():
            self.pusher.push_session(self.conn, session.name)  # commits made while down

    # -- panes ---------------------------------------------------------------------------

    def _poll_panes(self) -> None:
        """Observe the panes and deliver; skipped while nothing can have changed: no pane
        said anything (tmux control mode), no event came, no note waits, and no state is
        about to change with time alone (a debounce or a start-up running)."""
        if self._waiting is None:  # read again whenever the store moved
            self._waiting = deliveries.recipients_waiting(self.conn)
        waiting = self._waiting
        if not self._stirred and not waiting and self.poller.quiet():
            return
        self._stirred = False
        running = [s for s in self._my_sessions() if s.desired == DesiredState.RUNNING]
        self.versions.record(self.conn)
        self.versions.ask(running)
        seen = self.poller.observe(running)
        self._stirred = any(_unsettled(state, self.tracker.idle_after)
                            for state in seen.states.values() if state is not None)
        for session in running:
            try:
                self._poll_one(session, seen, session.name in waiting)
            except Exception as error:
                if guard.is_store_fault(error):
                    raise
                log.error("session %s skipped this tick: %s", session.name,
                          guard.reason(error))
        mine = self._my_sessions()
        self.slots.tick(mine, seen)
        # A session waiting for a slot may be admitted as time passes (an idle one freed).
        self._stirred |= any(s.desired == DesiredState.WAITING for s in mine)
        self._stirred |= self.deliverer.unsettled()  # a claim to settle: next tick, not later

    def _poll_one(self, session: Session, seen: Observation, notes_wait: bool) -> None:
        """Record one session's state (and why), then type, hold or announce its notes
        (asked of the store only when it has notes waiting or a mark or hold to clear)."""
        status, code, reason = shown_state(seen.states.get(session.name))
        activity_at = self._activity(session.name, status)
        if activity_at is not None or (status, code, reason) != (
                session.status, session.exit_code, session.status_reason):
            sessions.set_status(self.conn, session.name, status, code,
                                activity_at=activity_at, reason=reason)
        snap = seen.panes.get(session.name)
        self.presence.preview_if_due(self.conn, session.name, snap)
        if notes_wait or self.deliverer.holds(session.name) or (snap and snap.waiting_mark):
            self.poller.deliver(session, seen)

    def _activity(self, name: str, status: str) -> float | None:
        """Now, for a working session whose last activity is older than the throttle;
        else None (no write each tick for every busy session)."""
        now = time.time()
        if status != Status.WORKING or now - self._activity_written.get(name, 0) < ACTIVITY_EVERY:
            return None
        self._activity_written[name] = now
        return now


def _unsettled(state: PaneStatus, idle_after: float) -> bool:
    """A state that may change with time alone: a start-up running, or a screen not
    yet still for the debounce (it turns idle without a word from the pane)."""
    return state.status == Status.STARTING or state.still_for < idle_after + 2 * PANE_TICK


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino
