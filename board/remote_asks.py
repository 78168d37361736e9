"""Asking the machine that runs a session to stop or restart it (a room across machines).

A session's pane and worktree exist on one machine only, so only that machine can act on
them. The operator of another machine files an ask here; the running machine's
coordinator takes it, checks the power that machine granted the asker
(board.machine_grants, kept in its own local config, out of everyone else's reach), and
answers: done, refused or failed, with one line. Nothing else in the room can stop a
session of another machine.
"""

from __future__ import annotations

import time

from board.connection import Connection, inserted_id
from board.db import write
from board.errors import BadInput, NotFound
from board.records import record
from board.vocabulary import AskState

# The flags an ask may carry, per verb: what `bullpen stop|restart` accepts.
OPTIONS = {"stop": frozenset({"--remove-worktree", "--force"}),
           "restart": frozenset({"--fresh"})}
ANSWER_WAIT = 30.0  # seconds the asking operator waits before the ask expires
OPEN = (AskState.ASKED, AskState.TAKEN)


@record(frozen=True)
class RemoteAsk:
    id: int
    session: str
    verb: str
    options: tuple[str, ...]
    from_machine: str
    to_machine: str
    state: str
    detail: str | None
    created_at: float

    @property
    def is_open(self) -> bool:
        return self.state in OPEN


def ask(conn: Connection, session: str, verb: str, options: tuple[str, ...],
        from_machine: str, to_machine: str) -> int:
    """File an ask for machine `to_machine`; returns its id."""
    allowed = OPTIONS.get(verb)
    if allowed is None or not set(options) <= allowed:
        raise BadInput(f"cannot ask another machine to {verb} {' '.join(options)}".strip())
    now = time.time()
    with write(conn):
        cursor = conn.execute(
            "INSERT INTO remote_asks (session, verb, options, from_machine, to_machine,"
            " state, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (session, verb, " ".join(options), from_machine, to_machine, AskState.ASKED,
             now))
        return inserted_id(cursor)


def get(conn: Connection, ask_id: int) -> RemoteAsk:
    row = conn.execute("SELECT * FROM remote_asks WHERE id = ?", (ask_id,)).fetchone()
    if row is None:
        raise NotFound(f"no ask #{ask_id}")
    return _from_row(row)


def waiting_for(conn: Connection, machine: str) -> list[RemoteAsk]:
    """Asks filed for `machine` that nobody has taken yet, oldest first."""
    rows = conn.execute("SELECT * FROM remote_asks WHERE to_machine = ? AND state = ?"
                        " ORDER BY id", (machine, AskState.ASKED)).fetchall()
    return [_from_row(row) for row in rows]


def take(conn: Connection, ask_id: int) -> bool:
    """Claim an ask for doing it (False when another answer got there first)."""
    return _move(conn, ask_id, AskState.TAKEN, None, (AskState.ASKED,))


def answer(conn: Connection, ask_id: int, state: AskState, detail: str) -> bool:
    """Close an open ask with its outcome and one line saying what happened."""
    return _move(conn, ask_id, state, " ".join(detail.split())[:500], OPEN)


def expire(conn: Connection, ask_id: int) -> bool:
    """Give up an ask nobody took in time (one already taken is being done)."""
    return _move(conn, ask_id, AskState.EXPIRED, "nobody answered in time", (AskState.ASKED,))


def _move(conn: Connection, ask_id: int, state: AskState, detail: str | None,
          since: tuple[AskState, ...]) -> bool:
    marks = ", ".join("?" for _ in since)
    with write(conn):
        cursor = conn.execute(
            "UPDATE remote_asks SET state = ?, detail = coalesce(?, detail), answered_at = ?"
            f" WHERE id = ? AND state IN ({marks})",
            (state, detail, time.time(), ask_id, *since))
        return cursor.rowcount == 1


def _from_row(row) -> RemoteAsk:
    return RemoteAsk(id=row["id"], session=row["session"], verb=row["verb"],
                     options=tuple(row["options"].split()), from_machine=row["from_machine"],
                     to_machine=row["to_machine"], state=row["state"], detail=row["detail"],
                     created_at=row["created_at"])
