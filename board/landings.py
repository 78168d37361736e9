"""Landings: each time a session's branch was landed on the base branch, by whom.

A session counts as landed while its branch head is still the head it had when it
landed (squash and rebase make new commits, so reachability cannot tell).
"""

from __future__ import annotations

import time

from board import events, records
from board.connection import Connection, inserted_id
from board.db import write
from board.models import iso
from board.vocabulary import EventKind


@records.record(frozen=True)
class LandingRecord:
    id: int
    session: str
    base_branch: str
    old_base: str
    new_base: str
    head: str  # the session's branch head that landed
    strategy: str
    landed_by: str
    created_at: float

    def to_json(self) -> dict:
        return {"id": self.id, "session": self.session, "base_branch": self.base_branch,
                "old_base": self.old_base, "new_base": self.new_base, "head": self.head,
                "strategy": self.strategy, "landed_by": self.landed_by,
                "created_at": iso(self.created_at)}


def record(conn: Connection, session: str, *, base_branch: str, old_base: str,
           new_base: str, head: str, strategy: str, landed_by: str) -> int:
    """Store one landing (and its event); returns its id."""
    with write(conn):
        landing_id = inserted_id(conn.execute(
            "INSERT INTO landings (session, base_branch, old_base, new_base, head, strategy,"
            " landed_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (session, base_branch, old_base, new_base, head, strategy, landed_by,
             time.time())))
        events.emit(conn, EventKind.SESSION_LANDED, session, landing_id,
                    new_base=new_base, head=head)
    return landing_id


def latest(conn: Connection) -> dict[str, LandingRecord]:
    """Each session's newest landing, in one query."""
    rows = conn.execute(
        "SELECT * FROM landings WHERE id IN (SELECT max(id) FROM landings GROUP BY session)"
    ).fetchall()
    return {row["session"]: LandingRecord(
        row["id"], row["session"], row["base_branch"], row["old_base"], row["new_base"],
        row["head"], row["strategy"], row["landed_by"], row["created_at"]) for row in rows}
