"""The coordinator: one process per room that watches, dispatches and delivers.

It tails the store's events by id, polls every pane with one tmux call per tick,
records each session's status, types pending notes into idle panes, runs the file
watcher, and turns events into pings. A lock file keeps it single; `up` restarts it.
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
import time
from pathlib import Path

from board import alerts, dispatch, events, reads, sessions
from board.db import connect
from board.home import DB_NAME
from board.models import Session
from workers.coordinator.delivery import Deliverer
from workers.coordinator.pings import Dispatcher
from workers.coordinator.status import Status, StatusTracker
from workers.tmux import layout
from workers.tmux.panes import owned, snapshot_all
from workers.tmux.server import RoomServer
from worktrees.changes import branch_head, commits_between

log = logging.getLogger(__name__)

LOCK_NAME = "coordinator.lock"
EVENT_TICK = 0.05  # seconds between looks at the event log (a cheap indexed query)
PANE_TICK = 0.25  # seconds between pane polls (one tmux process each)
ACTIVITY_EVERY = 5.0  # seconds between writes of a busy session's last activity
WATCH_EVENTS = {"session_registered", "session_updated", "session_removed"}
# Seconds without session changes before the watch set is rebuilt: `up` registers many
# sessions in a row, and each rebuild rescans every worktree.
RETARGET_SETTLE = 0.5


def lock_path(home: Path) -> Path:
    return home / LOCK_NAME


def is_running(home: Path) -> bool:
    """True when a coordinator holds the room's lock."""
    path = lock_path(home)
    if not path.exists():
        return False
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
    return False


def take_lock(home: Path):
    """The open, locked lock file, or None when another coordinator holds it."""
    handle = lock_path(home).open("a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    handle.truncate(0)
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


def effective_status(session: Session, pane_status: Status | None,
                     exit_code: int | None) -> tuple[str, int | None]:
    """What `ls` shows: a dead pane is exited; no pane is stopped; otherwise the
    agent's own hook report wins over what the pane's content suggests."""
    if pane_status is None:
        return Status.STOPPED.value, None
    if pane_status == Status.EXITED:
        return Status.EXITED.value, exit_code
    if session.hook_status in (Status.WORKING, Status.IDLE) and pane_status != Status.NEEDS_INPUT:
        return session.hook_status, None
    return pane_status.value, None


class Coordinator:
    def __init__(self, home: Path, server: RoomServer | None = None,
                 idle_after: float = 1.5, watch: bool = True) -> None:
        self.home = home
        self.root = home.parent
        self.conn = connect(home / DB_NAME)
        self.server = server or layout.server_for(self.root)
        self.tracker = StatusTracker(idle_after=idle_after)
        self.deliverer = Deliverer(self.conn, self.server)
        self.dispatcher = Dispatcher(self.conn)
        self.watcher = None
        self.watch = watch
        self._fs_reads: dict[str, object] = {}  # session -> its FsReads, when opted in
        self._thread_conns = threading.local()  # watcher threads write on their own
        self._last_pane_poll = 0.0
        self._retarget_at: float | None = None  # when the watch set is due for a rebuild
        self._activity_written: dict[str, float] = {}

    # -- lifecycle -----------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        """Run until `stop` is set."""
        self.catch_up_commits()
        if self.watch:
            self._start_watcher()
        self._retarget_at = time.monotonic() + RETARGET_SETTLE
        try:
            while not stop.is_set():
                self.tick()
                stop.wait(EVENT_TICK)
        finally:
            if self.watcher is not None:
                self.watcher.stop()
            for reader in self._fs_reads.values():
                reader.stop()
            self.conn.close()

    def tick(self) -> None:
        """Apply new events; poll panes and deliver when it is time."""
        self._apply_events()
        now = time.monotonic()
        if self._retarget_at is not None and now >= self._retarget_at:
            self._retarget_at = None
            self._retarget()
        if now - self._last_pane_poll >= PANE_TICK:
            self._last_pane_poll = now
            self._poll_panes()

    # -- events --------------------------------------------------------------------------

    def _apply_events(self) -> None:
        batch = events.since(self.conn, self.dispatcher.cursor, limit=500)
        if not batch:
            return
        retarget = False
        for event in batch:
            self.dispatcher.handle(event)
            retarget |= event.kind in WATCH_EVENTS
            if event.kind == "note_sent":
                self._last_pane_poll = 0.0  # a note waits: look at the panes now, not next tick
            if event.kind == "change_recorded" and event.data.get("commit") and event.session:
                dispatch.set_mark(self.conn, f"head:{event.session}", event.data["commit"])
        self.dispatcher.save()
        if retarget:
            self._retarget_at = time.monotonic() + RETARGET_SETTLE

    def catch_up_commits(self) -> None:
        """Commits made while no coordinator ran are recorded now (alerts and pings follow)."""
        for session in sessions.all_sessions(self.conn):
            if not session.branch:
                continue
            head = branch_head(self.root, session.branch)
            seen = dispatch.get_mark(self.conn, f"head:{session.name}") or session.base
            if not head or head == seen:
                continue
            found = commits_between(self.root, seen, head) if seen else []
            files = sorted({path for commit in found for path in commit.files})
            if files:
                alerts.record_change(self.conn, session.name, files, head, found[-1].message)
            dispatch.set_mark(self.conn, f"head:{session.name}", head)

    # -- panes ---------------------------------------------------------------------------

    def _poll_panes(self) -> None:
        snapshots = snapshot_all(self.server)  # {} when the server is down
        statuses = self.tracker.update(snapshots)
        for session in sessions.all_sessions(self.conn):
            if session.desired != "running":
                continue
            snap = owned(snapshots, session.pane, session.name)
            pane = statuses.get(snap.pane_id) if snap is not None else None
            status, code = effective_status(session, pane.status if pane else None,
                                            pane.exit_code if pane else None)
            sessions.set_status(self.conn, session.name, status, code,
                                activity_at=self._activity(session.name, status))
            if status == Status.IDLE and snap is not None:
                self.deliverer.deliver(session.name, snap.pane_id, snap.current_command)

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
        from workers.coordinator.watcher import Watcher

        self.watcher = Watcher(self.root, on_change=self._on_change)
        self.watcher.start()

    def _retarget(self) -> None:
        """Watch the main checkout and every session's worktree; read-watch opted-in ones."""
        known = sessions.all_sessions(self.conn)
        worktrees = {s.name: Path(s.worktree) for s in known
                     if s.worktree and Path(s.worktree).is_dir()}
        if self.watcher is not None:
            self.watcher.set_targets({"main": self.root, **worktrees})
        opted_in = {s.name for s in known if s.fs_reads}
        for name in set(self._fs_reads) - (opted_in & set(worktrees)):
            self._fs_reads.pop(name).stop()
        for name in (opted_in & set(worktrees)) - set(self._fs_reads):
            from workers.coordinator.fs_reads import FsReads

            reader = FsReads(worktrees[name], on_reads=self._recorder(name))
            reader.start()
            self._fs_reads[name] = reader

    def _thread_conn(self):
        """This thread's own connection (sqlite3 connections are not shared across threads)."""
        conn = getattr(self._thread_conns, "conn", None)
        if conn is None:
            conn = self._thread_conns.conn = connect(self.home / DB_NAME)
        return conn

    def _on_change(self, batch) -> None:
        alerts.record_change(self._thread_conn(), batch.source, batch.paths, batch.commit,
                             batch.message)

    def _recorder(self, session: str):
        def record(paths: list[str]) -> None:
            reads.record(self._thread_conn(), session, paths, source="fs")
        return record


def serve(home: Path) -> int:
    """The `bullpen coordinator` process: take the lock or leave quietly."""
    handle = take_lock(home)
    if handle is None:
        print("a coordinator is already running for this room")
        return 0
    logs = home / "logs"
    logs.mkdir(exist_ok=True)
    logging.basicConfig(filename=logs / "coordinator.log", level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    print(f"bullpen coordinator for {home.parent} (pid {os.getpid()}); log in {logs}")
    stop = threading.Event()
    try:
        Coordinator(home).run(stop)
    except KeyboardInterrupt:
        pass
    finally:
        handle.close()
    return 0
