"""The session registry: names, token hashes, where each one runs and how it is doing."""

from __future__ import annotations

import time

from board import conflicts, events, validate
from board.connection import Connection, Row
from board.db import write
from board.errors import NotFound, Refused
from board.identity import hash_token, new_token
from board.models import Session
from board.vocabulary import DeliveryState, DesiredState, EventKind, SessionStatus, TaskStatus

# Statuses that end the turn a note started (its next note starts a chain of its own).
_TURN_OVER = frozenset({SessionStatus.IDLE, SessionStatus.EXITED, SessionStatus.STOPPED})


def _row_to_session(row: Row) -> Session:
    return Session(
        name=row["name"], agent=row["agent"], profile=row["profile"], branch=row["branch"],
        worktree=row["worktree"], pane=row["pane_id"], desired=row["desired"],
        status=row["status"], exit_code=row["exit_code"], task=row["task"], base=row["base"],
        hook_status=row["hook_status"], hook_status_at=row["hook_status_at"],
        last_activity=row["last_activity"], created_at=row["created_at"],
        on_commit=row["on_commit"], fs_reads=bool(row["fs_reads"]), machine=row["machine"],
        deliver=row["deliver"], status_reason=row["status_reason"],
        base_mode=row["base_mode"], agent_version=row["agent_version"],
    )


def register(conn: Connection, name: str, *, agent: str | None = None,
             profile: str | None = None, branch: str | None = None,
             worktree: str | None = None, base: str | None = None,
             task: str | None = None, machine: str | None = None) -> str:
    """Add a session and return its token (only the token's hash is stored). `machine`
    is where it runs: that machine's coordinator watches it and delivers its notes."""
    validate.session_name(name)
    token = new_token()
    with write(conn):
        if conn.execute("SELECT 1 FROM sessions WHERE name = ?", (name,)).fetchone():
            raise Refused(f"session {name!r} already exists; pick another name")
        if profile:
            ensure_profile_free(conn, profile, name, machine)
        conn.execute(
            "INSERT INTO sessions (name, token_hash, agent, profile, branch, worktree, base, task,"
            " machine, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (name, hash_token(token), agent, profile, branch, worktree, base, task, machine,
             time.time()),
        )
        events.emit(conn, EventKind.SESSION_REGISTERED, name)
    return token


def unregister(conn: Connection, name: str) -> None:
    """Forget a session that never got going (a spawn that failed half-way); its notes,
    reads and tasks stay as they are."""
    with write(conn):
        conn.execute("DELETE FROM sessions WHERE name = ?", (name,))


def forget(conn: Connection, name: str) -> int:
    """Remove session `name` from the room for good (`bullpen rm`), in one transaction:
    its unfinished tasks lose their assignee (they stay on the board for another), notes
    still waiting for it are dropped, its reads and open conflicts go (nobody alerts or
    predicts for it). What it did stays: its notes, notebook, commits, landings and the
    audit. Returns how many tasks were unassigned."""
    with write(conn):
        require(conn, name)
        now = time.time()
        unassigned = [row[0] for row in conn.execute(
            "SELECT id FROM tasks WHERE assignee = ? AND status NOT IN (?, ?)",
            (name, TaskStatus.DONE, TaskStatus.ARCHIVED))]
        for task_id in unassigned:
            conn.execute("UPDATE tasks SET assignee = NULL, updated_at = ? WHERE id = ?",
                         (now, task_id))
            events.emit(conn, EventKind.TASK_ASSIGNED, name, task_id, assignee=None)
        conn.execute("UPDATE deliveries SET state = ? WHERE recipient = ? AND state IN (?, ?, ?)",
                     (DeliveryState.DROPPED, name, DeliveryState.QUEUED, DeliveryState.HELD,
                      DeliveryState.CLAIMED))
        conn.execute("DELETE FROM reads WHERE session = ?", (name,))
        for conflict in conflicts.open_conflicts(conn, name):
            conflicts.clear(conn, conflict.a, conflict.b)
        conn.execute("DELETE FROM sessions WHERE name = ?", (name,))
        events.emit(conn, EventKind.SESSION_REMOVED, name)
    return len(unassigned)


def new_launch_token(conn: Connection, name: str) -> str:
    """A fresh token for a new launch of `name`; the old one stops working."""
    token = new_token()
    with write(conn):
        require(conn, name)
        conn.execute("UPDATE sessions SET token_hash = ? WHERE name = ?",
                     (hash_token(token), name))
    return token


def ensure_profile_free(conn: Connection, profile: str, for_session: str,
                        machine: str | None = None) -> None:
    """Refuse a profile that another running session holds (two hermes on one profile
    corrupt each other's memory). Profiles live in each machine's own hermes home, so
    only sessions of the same machine compete (one without a machine competes with all)."""
    row = conn.execute(
        "SELECT name FROM sessions WHERE profile = ? AND name != ? AND desired = ?"
        " AND (machine IS NULL OR CAST(? AS TEXT) IS NULL OR machine = ?)",
        (profile, for_session, DesiredState.RUNNING, machine, machine),
    ).fetchone()
    if row:
        raise Refused(f"profile {profile!r} is in use by session {row['name']!r}; stop it first"
                      " or pick another profile")


def worktree_of(conn: Connection, name: str) -> str | None:
    """The worktree session `name` works in (None: unknown, or none)."""
    row = conn.execute("SELECT worktree FROM sessions WHERE name = ?", (name,)).fetchone()
    return row[0] if row else None


def get(conn: Connection, name: str) -> Session | None:
    row = conn.execute("SELECT * FROM sessions WHERE name = ?", (name,)).fetchone()
    return _row_to_session(row) if row else None


def require(conn: Connection, name: str) -> Session:
    session = get(conn, name)
    if session is None:
        raise NotFound(f"unknown session {name!r}; see bullpen ls")
    return session


def all_sessions(conn: Connection) -> list[Session]:
    rows = conn.execute("SELECT * FROM sessions ORDER BY created_at, name").fetchall()
    return [_row_to_session(row) for row in rows]


def names(conn: Connection) -> list[str]:
    return [row[0] for row in conn.execute("SELECT name FROM sessions ORDER BY name")]


def update(conn: Connection, name: str, **fields: object) -> None:
    """Set launch facts (pane, worktree, desired state...) and log one event."""
    allowed = {"agent", "profile", "branch", "worktree", "base", "task", "pane_id", "desired",
               "on_commit", "fs_reads", "deliver", "base_mode",
               "agent_version"}
    unknown = set(fields) - allowed
    if unknown:
        raise ValueError(f"not updatable: {sorted(unknown)}")
    if not fields:
        return
    assignments = ", ".join(f"{key} = ?" for key in fields)
    with write(conn):
        require(conn, name)
        conn.execute(f"UPDATE sessions SET {assignments} WHERE name = ?", (*fields.values(), name))
        events.emit(conn, EventKind.SESSION_UPDATED, name, None, **fields)


def set_status(conn: Connection, name: str, status: str,
               exit_code: int | None = None, activity_at: float | None = None,
               reason: str | None = None) -> bool:
    """Record an observed status and why (`reason`: the question of a session that needs
    input, what is in front…); returns True (and logs an event) only when it changed.
    (The coordinator calls it only for a status that differs from what it last read, or
    for an activity time: a write transaction per session per pane poll was most of an
    idle coordinator's cost on PostgreSQL.)"""
    with write(conn):
        row = conn.execute("SELECT status, exit_code, status_reason FROM sessions"
                           " WHERE name = ?", (name,)).fetchone()
        if row is None:
            return False
        if activity_at is not None:
            conn.execute("UPDATE sessions SET last_activity = ? WHERE name = ?",
                         (activity_at, name))
        if (row["status"], row["exit_code"], row["status_reason"]) == (status, exit_code, reason):
            return False
        conn.execute("UPDATE sessions SET status = ?, exit_code = ?, status_reason = ?"
                     " WHERE name = ?", (status, exit_code, reason, name))
        if status in _TURN_OVER and row["status"] not in _TURN_OVER:
            from board import chains  # here: the hook after a tool call changes no status

            chains.turn_ended(conn, name)  # the turn a note started is over
        events.emit(conn, EventKind.SESSION_STATUS, name, status=status, exit_code=exit_code,
                    reason=reason)
    return True


def set_hook_status(conn: Connection, name: str, status: str | None) -> None:
    """Status reported by the agent's own hooks; it wins over what the pane suggests."""
    with write(conn):
        conn.execute("UPDATE sessions SET hook_status = ?, hook_status_at = ? WHERE name = ?",
                     (status, time.time(), name))
        if status == SessionStatus.IDLE:
            from board import chains

            chains.turn_ended(conn, name)  # its own hook says the turn is over
        events.emit(conn, EventKind.SESSION_HOOK_STATUS, name, status=status)
