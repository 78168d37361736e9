"""Commits made while no coordinator ran: recorded at start-up, so alerts and pings follow.

Each session's branch head is remembered as a mark (`head:<session>`); at start-up the
commits between that mark (or the session's base) and the branch's head become one
recorded change. Each session on its own: one that fails is logged and marked seen, so
a bad commit can never stop every later start-up.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

from board import alerts, marks, sessions
from board.connection import Connection
from board.db import write
from board.models import Session
from workers.coordinator import guard
from worktrees.changes import branch_head, commits_between

log = logging.getLogger(__name__)


def head_mark(session: str) -> str:
    """The mark holding the last branch head the coordinator saw for `session`."""
    return f"head:{session}"


def recorded_head(conn: Connection, name: str) -> str | None:
    """The last head recorded for session `name`: its mark, else the base it started from."""
    seen = marks.get_mark(conn, head_mark(name))
    if seen:
        return seen
    session = sessions.get(conn, name)
    return session.base if session is not None else None


def catch_up_commits(conn: Connection, root: Path,
                     known: Iterable[Session]) -> None:
    """Record the commits each session's branch gained since its head was last seen."""
    for session in known:
        if not session.branch:
            continue
        try:
            _catch_up(conn, root, session, session.branch)
        except Exception as error:
            if guard.is_store_fault(error):
                raise
            log.error("catch-up of %s's commits skipped: %s", session.name,
                      guard.reason(error))
            _skip_to_head(conn, root, session.name, session.branch)


def _skip_to_head(conn: Connection, root: Path, name: str, branch: str) -> None:
    """Mark the branch's head seen, so the next start-up does not retry it."""
    try:
        head = branch_head(root, branch)
    except Exception:  # a vanished branch or git failing: nothing to mark
        return
    if head:
        marks.set_mark(conn, head_mark(name), head)


def _catch_up(conn: Connection, root: Path, session: Session, branch: str) -> None:
    # git runs before the write transaction, not under the store's write lock: the
    # coordinator's recording lock keeps the watcher from recording meanwhile.
    head = branch_head(root, branch)
    seen = recorded_head(conn, session.name)
    if not head or head == seen:
        return
    found = commits_between(root, seen, head) if seen else []
    files = sorted({path for commit in found for path in commit.files})
    with write(conn):  # recorded and marked seen at once: a kill cannot record it twice
        if files:
            alerts.record_change(conn, session.name, files, head, found[-1].message)
        marks.set_mark(conn, head_mark(session.name), head)
