"""The audit trail: every privileged action and every refusal, append-only.

Who (the caller's name), what (the power and its target), when, and the outcome
(`allowed`, `refused`, `done`, or `failed: <reason>`). An action that can take long or
be killed midway (a landing, whose check may run for minutes) also writes `started`
before it acts, so an attempt that never finished is in the trail too. Rows are never
updated or deleted, so the trail shows what was tried as well as what happened.
"""

from __future__ import annotations

import time

from board import records
from board.connection import Connection, inserted_id
from board.db import is_postgres, write
from board.models import iso

DETAIL_CHARS = 500  # enough for the one-line reason of a refusal or failure
STARTED = "started"  # written before a long action; its outcome follows in its own entry


@records.record(frozen=True)
class AuditEntry:
    id: int
    actor: str
    action: str
    target: str | None
    outcome: str
    detail: str | None
    created_at: float
    machine: str | None = None  # where it was done (a room on PostgreSQL)

    def to_json(self) -> dict:
        return {"id": self.id, "actor": self.actor, "action": self.action,
                "target": self.target, "outcome": self.outcome, "detail": self.detail,
                "created_at": iso(self.created_at), "machine": self.machine}


def record(conn: Connection, actor: str, action: str, target: str | None,
           outcome: str, detail: str | None = None) -> int:
    """Append one entry in its own short transaction; returns its id."""
    if detail is not None:
        detail = " ".join(detail.split())[:DETAIL_CHARS]
    with write(conn):
        return inserted_id(conn.execute(
            "INSERT INTO audit (actor, action, target, outcome, detail, created_at, machine)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (actor, action, target, outcome, detail, time.time(), acting_machine(conn))))


def acting_machine(conn: Connection) -> str | None:
    """The machine this connection acts for, as the database knows it: on PostgreSQL the
    machine whose role it logged in as (a paired machine cannot claim another's), when
    exactly one machine has that role; on SQLite, None (one machine)."""
    if not is_postgres(conn):
        return None
    row = conn.execute("SELECT min(name) FROM machines WHERE role = current_user"
                       " HAVING count(*) = 1").fetchone()
    return row[0] if row else None


def entries(conn: Connection, limit: int = 1000) -> list[AuditEntry]:
    """The newest `limit` entries, oldest first (the order things happened)."""
    rows = conn.execute(
        "SELECT * FROM (SELECT * FROM audit ORDER BY id DESC LIMIT ?) ORDER BY id",
        (limit,)).fetchall()
    return [AuditEntry(row["id"], row["actor"], row["action"], row["target"],
                       row["outcome"], row["detail"], row["created_at"], row["machine"])
            for row in rows]


def since(conn: Connection, after_id: int, action: str) -> list[AuditEntry]:
    """Entries of `action` with id greater than `after_id`, oldest first (a tail)."""
    rows = conn.execute("SELECT * FROM audit WHERE id > ? AND action = ? ORDER BY id",
                        (after_id, action)).fetchall()
    return [AuditEntry(row["id"], row["actor"], row["action"], row["target"],
                       row["outcome"], row["detail"], row["created_at"], row["machine"])
            for row in rows]


def last_id(conn: Connection) -> int:
    """The newest entry's id (0 for none): where a tail starts."""
    row = conn.execute("SELECT max(id) FROM audit").fetchone()
    return int(row[0] or 0)
