"""`bullpen doctor`: what is wrong with the room, and the command that fixes each thing.

Read-only: it opens the store without creating it, runs SQLite's `quick_check`, and
looks at the lock and coordinator, the tmux server, the worktrees against the sessions,
and each agent session's hooks and profile. Every finding is one line with its fix.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from board import integrity, machines, marks, sessions
from board.connection import Connection
from board.db import connect, is_postgres, schema_version
from board.errors import BadInput, BullpenError
from board.home import DB_NAME, check_home
from board.models import Session
from board.room import check_store_present
from board.schema import MIGRATIONS
from board.store import StoreKind, choose
from board.vocabulary import CANNOT_READ, DesiredState, SessionStatus
from workers import logs as room_logs
from workers.agents.adapter import Adapter
from workers.agents.kinds import adapter_for
from workers.coordinator import process
from workers.coordinator.lock import check_lock_path, is_running, read_state
from workers.room import config, policy_check
from workers.room.doctor_claims import old_claims
from workers.room.doctor_land import land_leftovers
from workers.room.doctor_notify import notify_findings
from workers.room.findings import Finding
from workers.room.spread_finding import spread_finding
from workers.tmux import layout
from worktrees.naming import worktree_path
from worktrees.repo import list_worktrees

RUN_TESTED = "run a release bullpen is tested with (doctor names them), or report it"


def diagnose(home: Path) -> list[Finding]:
    """Every check, in the order a fix should be applied (the store first)."""
    found = _home(home)
    if not found[-1].ok:
        return found
    found += _logs(home) + notify_findings(home)  # read from local.yaml: no store needed
    conn, store = _store(home)
    found += store
    if conn is None:
        return found + _coordinator(home, needed=False)  # the store comes first
    try:
        here = machines.local_name(home)  # a shared room: this machine's sessions only
        known = [s for s in sessions.all_sessions(conn)
                 if not is_postgres(conn) or s.machine in (None, here)]
        needed = any(s.desired == DesiredState.RUNNING for s in known)
        found += land_leftovers(home, conn)  # before _worktrees, which would list them
        if needed and _stopped_cleanly(home, conn):
            found.append(Finding("room", True, "the room is down (bullpen up starts it)"))
        else:
            found += _coordinator(home, needed)
            found += _tmux(home, known)
        found += _worktrees(home, known)
        found += [finding for session in known for finding in _agent(home, session)]
        found += _policy(home, [s for s in known if s.desired == DesiredState.RUNNING])
        found += old_claims(home, conn, {s.name for s in known})
    except sqlite3.DatabaseError as error:
        found.append(Finding("store", False, f"reading the sessions failed ({error})",
                             "restore .bullpen/bullpen.db from a backup"))
    finally:
        conn.close()
    return found


def _stopped_cleanly(home: Path, conn: Connection) -> bool:
    """`bullpen down` ran (and no `up` since), and nothing of the room runs: no tmux
    server, no coordinator, no failed start. A crash or a reboot leaves no such mark."""
    mark = marks.get_mark(conn, marks.down_key(machines.local_name(home)))
    return (mark == "1" and not layout.server_for(home.parent).is_alive()
            and not is_running(home) and not process.start_failure(home))


def _logs(home: Path) -> list[Finding]:
    """Each log's size; every log rotates at its cap, so this is information, not a fault."""
    sizes = room_logs.sizes(home)
    if not sizes:
        return []
    listed = ", ".join(f"{name} {_size(size)}" for name, size in sizes.items())
    return [Finding("logs", True, f"logs: {listed} (each rotates at"
                    f" {_size(room_logs.CAP_BYTES)}, {room_logs.GENERATIONS} kept)")]


def _size(size: int) -> str:
    for unit in ("B", "KiB"):
        if size < 1024:
            return f"{size} {unit}"
        size //= 1024
    return f"{size} MiB"


def _home(home: Path) -> list[Finding]:
    try:
        check_home(home)
    except BullpenError as error:
        return [Finding("room", False, str(error), "unset BULLPEN_HOME or point it at a room")]
    if not home.is_dir():
        return [Finding("room", False, f"no room at {home}", "bullpen init")]
    return [Finding("room", True, f"room at {home}")]


def _store(home: Path) -> tuple[Connection | None, list[Finding]]:
    db = home / DB_NAME
    if choose(home).kind == StoreKind.POSTGRESQL:
        from workers.room.doctor_pg import postgres_store

        return postgres_store(home)
    try:
        check_store_present(home)
        if not db.exists():
            return None, [Finding("store", True, "no database yet (made at first use)")]
        conn = connect(db)
    except BullpenError as error:
        fix = (_recover(db) if "damaged" in str(error) else
               "restore bullpen.db from a backup, or move .bullpen aside")
        return None, [Finding("store", False, str(error), fix)]
    problem = integrity.quick_check(conn)
    if problem:
        return conn, [Finding("store", False, f"{db} is damaged: {problem}", _recover(db))]
    version = schema_version(conn)
    return conn, [Finding("store", version == len(MIGRATIONS),
                          f"integrity ok, schema {version} of {len(MIGRATIONS)}",
                          None if version == len(MIGRATIONS) else "upgrade bullpen")]


def _recover(db: Path) -> str:
    return (f"bullpen down; sqlite3 {db} .recover | sqlite3 {db}.recovered, then move"
            f" {db}.recovered to {db}")


def _coordinator(home: Path, needed: bool) -> list[Finding]:
    """The lock and the coordinator (`needed`: some session should be running)."""
    try:
        check_lock_path(home)
        running = is_running(home)
    except BullpenError as error:
        return [Finding("coordinator", False, str(error), f"rm -r {home / 'coordinator.lock'}")]
    if not running:
        failure = process.start_failure(home)
        if not needed and not failure:
            return [Finding("coordinator", True, "not running (no session should run)")]
        why = f": it stopped with {failure}" if failure else ""
        return [Finding("coordinator", False, f"not running{why}", "bullpen up")]
    state = read_state(home)
    if state:
        return [Finding("coordinator", False, f"running, but {state}",
                        "free space or make the store writable; it retries by itself")]
    return [Finding("coordinator", True, "running")]


def _tmux(home: Path, known: list[Session]) -> list[Finding]:
    server = layout.server_for(home.parent)
    wanted = [s.name for s in known if s.desired == DesiredState.RUNNING]
    if not server.is_alive():
        if wanted:
            return [Finding("tmux", False, f"the room's tmux server is down while"
                             f" {', '.join(wanted)} should run", "bullpen up")]
        return [Finding("tmux", True, "no tmux server (nothing should run)")]
    lost = [s.name for s in known if s.desired == DesiredState.RUNNING
            and not layout.owns_pane(server, s.pane, s.name)]
    if lost:
        return [Finding("tmux", False, f"{', '.join(lost)} should run but has no pane",
                        "bullpen up")]
    return [Finding("tmux", True, f"server up, {len(wanted)} session pane(s)")]


def _worktrees(home: Path, known: list[Session]) -> list[Finding]:
    root = home.parent
    found = []
    registered = list_worktrees(root)
    for wt in registered:
        if wt.prunable:
            found.append(Finding("worktrees", False, f"{wt.path} is registered but gone",
                                 f"git -C {root} worktree prune"))
    for session in known:
        if session.worktree and not Path(session.worktree).is_dir():
            found.append(Finding("worktrees", False, f"{session.name}'s worktree"
                                 f" {session.worktree} is missing (its branch keeps the work)",
                                 f"bullpen restart {session.name}"))
    names = {s.name for s in known}
    room_dir = worktree_path(root, "x").parent
    if room_dir.is_dir():
        for entry in sorted(room_dir.iterdir()):
            if entry.is_dir() and entry.name not in names:
                found.append(Finding("worktrees", False, f"{entry} belongs to no session",
                                     f"git -C {root} worktree remove {entry}"
                                     " (refused if it holds work)"))
    return found or [Finding("worktrees", True, f"{len(known)} session(s), worktrees match")]


def _policy(home: Path, running: list[Session]) -> list[Finding]:
    """The room's `deny:` that its running agents cannot hold: said, not a failure."""
    try:
        plan = config.load(home.parent)
    except config.RefusedFile:
        raise  # too big to read at all: one line, as every command that loads it says
    except BadInput:
        return []  # `up` names what is wrong with bullpen.yaml
    # A lever that does not hold never reads "ok" (the room's `deny:` is a promise).
    return [*(Finding("policy", False, line, RUN_TESTED)
              for line in policy_check.release_gaps(plan, running)),
            *(Finding("policy", False, line.removeprefix("warning: "),
                      "run those sessions with an agent that enforces deny:, or drop the"
                      " patterns it cannot hold")
              for line in policy_check.warnings(plan, running))]


def _agent(home: Path, session: Session) -> list[Finding]:
    """The session's agent integration, as its kind's adapter checks it."""
    if session.desired != DesiredState.RUNNING:
        return []
    adapter = adapter_for(session.agent)
    return [*_version(session, adapter), *(Finding("agents", health.ok, health.what, health.fix)
            for health in adapter.health(home, session))]


def _version(session: Session, adapter: Adapter) -> list[Finding]:
    """Which release the session's agent runs and whether bullpen's tests run it; not ok
    when its screen could not be read (a release whose screen changed)."""
    if not adapter.says_version:
        return []
    tested = ", ".join(adapter.tested_versions) or "none"
    if session.agent_version is None:
        return [Finding("agents", True, f"{session.name}: {adapter.kind} did not say its"
                        f" version at launch (tested: {tested})")]
    running = f"{session.name}: {adapter.kind} {session.agent_version}"
    unread = session.status == SessionStatus.UNKNOWN and (
        session.status_reason or "").startswith(CANNOT_READ)
    if unread:
        return [Finding("agents", False, f"{running}, whose screen bullpen cannot read",
                        f"run a release bullpen is tested with ({tested}), or report it")]
    found = spread_finding(running, adapter.kind, session.agent_version)
    lost = adapter.lost_levers(session.agent or "", session.agent_version)
    promises = adapter.lost_promises(session.agent or "", session.agent_version)
    said = found.what + (f": {', '.join(lost)}" if lost else "") + (
        f"; it does not keep: {', '.join(promises)}" if promises else "")
    if lost:  # a lever that does not hold never reads ok
        return [Finding("agents", False, said, RUN_TESTED)]
    return [Finding("agents", found.ok, said, found.fix)]
