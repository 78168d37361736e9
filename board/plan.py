"""The plan's tasks: one task per planned session, made once however often `up` runs.

`bullpen.yaml` (parsed in `workers.room.config`) names sessions, their task text and whom
each waits for (`after`). `up` hands the plan over as `PlannedTask`s in dependency order;
each session's task is created once, linked to its parents' tasks, and remembered in
`plan_tasks`, so the coder's task waits for research's and a second `up` adds nothing.

Across machines one plan is shared: a session another machine runs may not be registered
yet when this machine's `up` makes the plan's tasks. Its task is made unassigned (so the
links hold whoever starts first) and assigned by the `up` that registers it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from board import marks, sessions, tasks
from board.connection import Connection
from board.db import write
from board.identity import Caller
from board.records import record
from board.vocabulary import OPERATOR


@record(frozen=True)
class PlannedTask:
    """One session's part of the plan: its task text and the sessions it waits for."""

    session: str
    text: str
    after: tuple[str, ...] = ()


def plan_tasks(conn: Connection) -> dict[str, int]:
    """Session name -> the id of its plan task, for every session that has one."""
    return {session: task for session, task in
            conn.execute("SELECT session, task FROM plan_tasks")}


def plan_task(conn: Connection, session: str) -> int | None:
    """The id of `session`'s plan task, or None when the plan gave it none."""
    row = conn.execute("SELECT task FROM plan_tasks WHERE session = ?", (session,)).fetchone()
    return row[0] if row else None


def create_plan_tasks(conn: Connection, planned: Iterable[PlannedTask]) -> list[int]:
    """Create the missing plan tasks (parents first: `planned` is in dependency order),
    each assigned to its session and waiting for its parents'; returns the new ids."""
    operator = Caller(OPERATOR)
    created: list[int] = []
    with write(conn):
        existing = plan_tasks(conn)
        for item in planned:
            if item.session in existing:
                continue
            title, _, rest = item.text.partition("\n")
            parents = [existing[parent] for parent in item.after if parent in existing]
            here = sessions.get(conn, item.session) is not None
            task = tasks.add(conn, operator, title[:200], body=rest or item.text,
                             assignee=item.session if here else None, after=parents)
            conn.execute("INSERT INTO plan_tasks (session, task) VALUES (?, ?)",
                         (item.session, task.id))
            existing[item.session] = task.id
            created.append(task.id)
        for item in planned:  # made before its session was registered (another machine's)
            task = tasks.get(conn, existing[item.session])
            if task.assignee is None and sessions.get(conn, item.session) is not None:
                tasks.assign(conn, operator, task.id, item.session)
    return created


PLANNED_KEY = "planned_sessions"  # every session `up` ever started from bullpen.yaml


def remember_planned(conn: Connection, names: Iterable[str]) -> frozenset[str]:
    """Add `names` to the sessions ever planned; returns them all, these included. A
    session once planned and since deleted from bullpen.yaml is one `up` leaves alone
    (a session made with `bullpen spawn` was never planned: `up` brings it back)."""
    with write(conn):
        known = frozenset(json.loads(marks.get_mark(conn, PLANNED_KEY) or "[]"))
        every = known | frozenset(names)
        if every != known:
            marks.set_mark(conn, PLANNED_KEY, json.dumps(sorted(every)))
    return every


def forget_planned(conn: Connection, name: str) -> None:
    """`bullpen rm`: a session named again later is a new one."""
    with write(conn):
        known = set(json.loads(marks.get_mark(conn, PLANNED_KEY) or "[]"))
        if name in known:
            marks.set_mark(conn, PLANNED_KEY, json.dumps(sorted(known - {name})))
