"""Predicted merge conflicts: two sessions (or a session and the base branch) whose work
will not merge, with the files, the line ranges, the commits and since when.

One row per episode: `found` opens it (event `conflict_found`) or refreshes its
details while it lasts; `clear` closes it (`conflict_cleared`). A conflict that comes
back later is a new row, so each episode is announced once when found and once when
cleared. A pair of sessions is stored in name order (`a` < `b`); with the base branch,
`a` is the session and `b` the branch (`with_base`).
"""

from __future__ import annotations

import json
import time

from board import events, marks
from board.connection import Connection, Row, inserted_id
from board.db import write
from board.models import iso
from board.records import record
from board.vocabulary import EventKind


@record(frozen=True)
class ConflictFile:
    path: str
    a_lines: tuple[tuple[int, int], ...]  # first and last line in a's version
    b_lines: tuple[tuple[int, int], ...]

    def to_json(self) -> dict:
        return {"path": self.path, "a_lines": [list(r) for r in self.a_lines],
                "b_lines": [list(r) for r in self.b_lines]}


@record(frozen=True)
class Conflict:
    id: int
    a: str
    b: str
    with_base: bool
    files: tuple[ConflictFile, ...]
    a_commits: tuple[str, ...]  # short ids; "uncommitted" when edits not yet committed count
    b_commits: tuple[str, ...]
    since: float
    updated_at: float
    cleared_at: float | None = None

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(f.path for f in self.files)

    def other(self, session: str) -> str:
        """The other side, seen from `session`."""
        return self.b if session == self.a else self.a

    def lines_of(self, session: str, path: str) -> tuple[tuple[int, int], ...]:
        """The conflicting lines of `path` in `session`'s version."""
        found = next((f for f in self.files if f.path == path), None)
        if found is None:
            return ()
        return found.a_lines if session == self.a else found.b_lines

    def to_json(self) -> dict:
        return {"id": self.id, "a": self.a, "b": self.b, "with_base": self.with_base,
                "files": [f.to_json() for f in self.files],
                "commits": {self.a: list(self.a_commits), self.b: list(self.b_commits)},
                "since": iso(self.since), "updated_at": iso(self.updated_at),
                "cleared_at": iso(self.cleared_at)}


def pair(one: str, other: str) -> tuple[str, str]:
    """How a pair of sessions is stored: in name order."""
    return (one, other) if one <= other else (other, one)


def _row(row: Row) -> Conflict:
    files = tuple(ConflictFile(f["path"], tuple(tuple(r) for r in f["a_lines"]),
                               tuple(tuple(r) for r in f["b_lines"]))
                  for f in json.loads(row["files"]))
    commits = json.loads(row["commits"])
    return Conflict(row["id"], row["a"], row["b"], bool(row["with_base"]), files,
                    tuple(commits.get("a", ())), tuple(commits.get("b", ())), row["since"],
                    row["updated_at"], row["cleared_at"])


def open_between(conn: Connection, a: str, b: str) -> Conflict | None:
    """The open conflict of this (stored-order) pair, or None."""
    row = conn.execute("SELECT * FROM conflicts WHERE cleared_at IS NULL AND a = ? AND b = ?",
                       (a, b)).fetchone()
    return _row(row) if row else None


def found(conn: Connection, a: str, b: str, files: tuple[ConflictFile, ...], *,
          a_commits: tuple[str, ...], b_commits: tuple[str, ...],
          with_base: bool = False) -> tuple[Conflict, bool]:
    """Record a predicted conflict; returns it and whether it is new (just opened)."""
    data = json.dumps([f.to_json() for f in files])
    commits = json.dumps({"a": list(a_commits), "b": list(b_commits)})
    now = time.time()
    with write(conn):
        row = conn.execute("SELECT * FROM conflicts WHERE cleared_at IS NULL AND a = ? AND b = ?",
                           (a, b)).fetchone()
        if row is not None:
            if (row["files"], row["commits"]) != (data, commits):
                conn.execute("UPDATE conflicts SET files = ?, commits = ?, updated_at = ?"
                             " WHERE id = ?", (data, commits, now, row["id"]))
            fresh = conn.execute("SELECT * FROM conflicts WHERE id = ?", (row["id"],)).fetchone()
            return _row(fresh), False
        reopened = _reopen_parked(conn, a, b, data, commits)
        if reopened is not None:
            return reopened, False
        conflict_id = inserted_id(conn.execute(
            "INSERT INTO conflicts (a, b, with_base, files, commits, since, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (a, b, int(with_base), data, commits, now, now)))
        events.emit(conn, EventKind.CONFLICT_FOUND, a, conflict_id, other=b,
                    paths=[f.path for f in files])
        created = conn.execute("SELECT * FROM conflicts WHERE id = ?", (conflict_id,)).fetchone()
    return _row(created), True


def clear(conn: Connection, a: str, b: str) -> Conflict | None:
    """Close the open conflict of this pair; returns it (now cleared), or None if none was open."""
    with write(conn):
        row = conn.execute("SELECT * FROM conflicts WHERE cleared_at IS NULL AND a = ? AND b = ?",
                           (a, b)).fetchone()
        if row is None:
            return None
        conn.execute("UPDATE conflicts SET cleared_at = ? WHERE id = ?", (time.time(), row["id"]))
        events.emit(conn, EventKind.CONFLICT_CLEARED, a, row["id"], other=b)
        cleared = conn.execute("SELECT * FROM conflicts WHERE id = ?", (row["id"],)).fetchone()
    return _row(cleared)


def _parked_key(a: str, b: str) -> str:
    return f"conflict_parked:{a}:{b}"


def park(conn: Connection, a: str, b: str) -> None:
    """Close the pair's open conflict because a side stopped (its work is not live), not
    because the merge became clean: no note says it cleared, and if the same prediction
    comes back with the session (`found`), the same conflict opens again, untold."""
    with write(conn):
        row = conn.execute("SELECT id FROM conflicts WHERE cleared_at IS NULL AND a = ?"
                           " AND b = ?", (a, b)).fetchone()
        if row is None:
            return
        conn.execute("UPDATE conflicts SET cleared_at = ? WHERE id = ?", (time.time(), row["id"]))
        events.emit(conn, EventKind.CONFLICT_CLEARED, a, row["id"], other=b)
        marks.set_mark(conn, _parked_key(a, b), str(row["id"]))


def unpark(conn: Connection, a: str, b: str) -> Conflict | None:
    """The pair's parked conflict, no longer kept for its return (the prediction moved
    on: the caller says it cleared); None when none is parked."""
    if not marks.get_mark(conn, _parked_key(a, b)):  # the usual case: a read, no write
        return None
    with write(conn):
        kept = marks.get_mark(conn, _parked_key(a, b))
        if not kept:
            return None
        marks.set_mark(conn, _parked_key(a, b), "")
        row = conn.execute("SELECT * FROM conflicts WHERE id = ?", (int(kept),)).fetchone()
    return _row(row) if row else None


def _reopen_parked(conn: Connection, a: str, b: str, data: str,
                   commits: str) -> Conflict | None:
    """The parked conflict of the pair opened again when the prediction is the same."""
    kept = marks.get_mark(conn, _parked_key(a, b))
    if not kept:
        return None
    marks.set_mark(conn, _parked_key(a, b), "")
    row = conn.execute("SELECT * FROM conflicts WHERE id = ?", (int(kept),)).fetchone()
    if row is None or (row["files"], row["commits"]) != (data, commits):
        return None  # another prediction: a new conflict, told as such
    conn.execute("UPDATE conflicts SET cleared_at = NULL, updated_at = ? WHERE id = ?",
                 (time.time(), row["id"]))
    events.emit(conn, EventKind.CONFLICT_FOUND, a, row["id"], other=b,
                paths=[f["path"] for f in json.loads(data)])
    return _row(conn.execute("SELECT * FROM conflicts WHERE id = ?", (row["id"],)).fetchone())


def open_conflicts(conn: Connection, session: str | None = None) -> list[Conflict]:
    """Open conflicts, oldest first; with `session`, only those it is part of."""
    if session is None:
        rows = conn.execute("SELECT * FROM conflicts WHERE cleared_at IS NULL ORDER BY id")
    else:
        rows = conn.execute("SELECT * FROM conflicts WHERE cleared_at IS NULL"
                            " AND (a = ? OR b = ?) ORDER BY id", (session, session))
    return [_row(row) for row in rows.fetchall()]
