"""board.sessions.forget, on both stores: what a removed session leaves, and what goes."""

from __future__ import annotations

import pytest

from board import conflicts, deliveries, notes, reads, sessions, tasks
from board.conflicts import ConflictFile
from board.errors import NotFound
from board.identity import Caller
from board.models import OPERATOR
from board.room import Room
from board.vocabulary import TaskStatus

pytestmark = pytest.mark.both_stores


def test_forget_unassigns_drops_and_clears_but_keeps_history(room: Room) -> None:
    operator = Caller(OPERATOR)
    for name in ("py", "js"):
        sessions.register(room.conn, name)
    open_task = tasks.add(room.conn, operator, "port it", assignee="py")
    finished = tasks.add(room.conn, operator, "done already", assignee="py")
    tasks.move(room.conn, operator, finished.id, TaskStatus.DONE)
    waiting = notes.send(room.conn, operator, "py", "for you")
    sent = notes.send(room.conn, Caller("py"), "js", "from py")
    reads.record(room.conn, "py", ["src/app.py"])
    conflicts.found(room.conn, "js", "py", (ConflictFile("src/app.py", ((1, 1),), ((1, 1),)),),
                    a_commits=("a",), b_commits=("b",))

    assert sessions.forget(room.conn, "py") == 1

    assert sessions.get(room.conn, "py") is None and sessions.get(room.conn, "js")
    assert tasks.get(room.conn, open_task.id).assignee is None
    assert tasks.get(room.conn, finished.id).assignee == "py"  # what it did stays its own
    assert deliveries.state_of(room.conn, waiting.id, "py") == "dropped"
    assert deliveries.state_of(room.conn, sent.id, "js") == "queued"  # its notes stay
    assert reads.of_session(room.conn, "py") == []
    assert conflicts.open_conflicts(room.conn) == []
    with pytest.raises(NotFound, match="unknown session 'py'"):
        sessions.forget(room.conn, "py")
