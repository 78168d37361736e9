"""The status board: tasks, dependencies and their rules.

A task whose parents are not all done is `todo`; it becomes `ready` in the same
transaction that finishes its last parent. Cycles are refused. A claim is one
conditional UPDATE, so of two sessions racing exactly one wins.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from board import authority, events, sessions, validate
from board.connection import Connection, Row, inserted_id
from board.db import write
from board.errors import BadInput, NotFound, Refused
from board.identity import Caller
from board.models import Comment, Task
from board.vocabulary import (
    FINISHED_TASK_STATUSES,
    NEEDS_PARENTS_DONE,
    EventKind,
    TaskStatus,
)


def _parents(conn: Connection, task_id: int) -> tuple[int, ...]:
    return tuple(row[0] for row in conn.execute(
        "SELECT parent FROM task_links WHERE child = ? ORDER BY parent", (task_id,)))


def _children(conn: Connection, task_id: int) -> tuple[int, ...]:
    return tuple(row[0] for row in conn.execute(
        "SELECT child FROM task_links WHERE parent = ? ORDER BY child", (task_id,)))


def _row_to_task(conn: Connection, row: Row, *, detail: bool = False,
                 parents: tuple[int, ...] | None = None) -> Task:
    comments: tuple[Comment, ...] = ()
    children: tuple[int, ...] = ()
    if detail:
        children = _children(conn, row["id"])
        comments = tuple(
            Comment(c["id"], c["author"], c["body"], c["created_at"])
            for c in conn.execute(
                "SELECT * FROM task_comments WHERE task = ? ORDER BY id", (row["id"],))
        )
    return Task(
        id=row["id"], title=row["title"], status=row["status"], assignee=row["assignee"],
        parents=_parents(conn, row["id"]) if parents is None else parents,
        summary=row["summary"], body=row["body"], children=children,
        block_reason=row["block_reason"], created_by=row["created_by"],
        created_at=row["created_at"], updated_at=row["updated_at"], comments=comments,
    )


def get(conn: Connection, task_id: int) -> Task:
    row = conn.execute("SELECT * FROM tasks WHERE id = ?", (task_id,)).fetchone()
    if row is None:
        raise NotFound(f"unknown task {task_id}; see bullpen task ls")
    return _row_to_task(conn, row, detail=True)


def list_tasks(conn: Connection, *, statuses: Iterable[str] | None = None,
               assignee: str | None = None) -> list[Task]:
    """Every task (optionally filtered), with parents, in id order — two queries in all."""
    query, params = "SELECT * FROM tasks WHERE 1 = 1", []
    if statuses is not None:
        wanted = list(statuses)
        query += f" AND status IN ({','.join('?' * len(wanted))})"
        params += wanted
    if assignee is not None:
        query += " AND assignee = ?"
        params.append(assignee)
    rows = conn.execute(query + " ORDER BY id", params).fetchall()
    parents: dict[int, list[int]] = {}
    for parent, child in conn.execute("SELECT parent, child FROM task_links ORDER BY parent"):
        parents.setdefault(child, []).append(parent)
    return [_row_to_task(conn, row, parents=tuple(parents.get(row["id"], ()))) for row in rows]


def _unfinished_parents(conn: Connection, task_id: int) -> list[int]:
    return [row[0] for row in conn.execute(
        "SELECT t.id FROM task_links l JOIN tasks t ON t.id = l.parent"
        " WHERE l.child = ? AND t.status != ?", (task_id, TaskStatus.DONE))]


def _check_assignee(conn: Connection, assignee: str | None) -> None:
    if assignee is not None:
        sessions.require(conn, assignee)


def add(conn: Connection, caller: Caller, title: str, *, body: str = "",
        assignee: str | None = None, after: Iterable[int] = (),
        status: str | None = None) -> Task:
    """Create a task; with unfinished parents it starts `todo`, otherwise `ready`."""
    validate.text(title, "task title")
    if body:
        validate.text(body, "task body")
    parents = sorted(set(after))
    now = time.time()
    with write(conn):
        _check_assignee(conn, assignee)
        for parent in parents:
            get(conn, parent)
        waiting = any(get(conn, parent).status != TaskStatus.DONE for parent in parents)
        initial = TaskStatus.TODO if waiting else TaskStatus.READY
        if status is not None:
            initial = validate.status(status)
            if waiting and initial in NEEDS_PARENTS_DONE:
                raise Refused(f"a task waiting on unfinished parents cannot start as {status}")
        task_id = inserted_id(conn.execute(
            "INSERT INTO tasks (title, body, status, assignee, created_by, created_at,"
            " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (title, body, initial, assignee, caller.name, now, now),
        ))
        conn.executemany("INSERT INTO task_links (parent, child) VALUES (?, ?)",
                         [(parent, task_id) for parent in parents])
        events.emit(conn, EventKind.TASK_ADDED, caller.name, task_id, status=initial,
                    assignee=assignee)
        if initial == TaskStatus.READY:
            events.emit(conn, EventKind.TASK_READY, assignee, task_id)
        return get(conn, task_id)


def link(conn: Connection, caller: Caller, parent: int, child: int) -> Task:
    """Make `child` wait for `parent`; refuses a link that would close a cycle."""
    if parent == child:
        raise Refused(f"task {child} cannot wait for itself")
    authority.check_task(conn, caller, child, "link")
    with write(conn):
        get(conn, parent)
        child_task = get(conn, child)
        if parent in _descendants(conn, child):
            raise Refused(f"task {child} cannot wait for task {parent}: that makes a cycle")
        conn.execute("INSERT OR IGNORE INTO task_links (parent, child) VALUES (?, ?)",
                     (parent, child))
        events.emit(conn, EventKind.TASK_LINKED, caller.name, child, parent=parent)
        if child_task.status == TaskStatus.READY and _unfinished_parents(conn, child):
            _set_status(conn, caller, child, TaskStatus.TODO)
        return get(conn, child)


def _descendants(conn: Connection, task_id: int) -> set[int]:
    rows = conn.execute(
        "WITH RECURSIVE below(id) AS (SELECT child FROM task_links WHERE parent = ?"
        " UNION SELECT l.child FROM task_links l JOIN below b ON l.parent = b.id)"
        " SELECT id FROM below", (task_id,))
    return {row[0] for row in rows}


def _set_status(conn: Connection, caller: Caller, task_id: int, status: str,
                **extra: object) -> None:
    old = conn.execute("SELECT status FROM tasks WHERE id = ?", (task_id,)).fetchone()[0]
    columns = {"status": status, "updated_at": time.time(), **extra}
    assignments = ", ".join(f"{key} = ?" for key in columns)
    conn.execute(f"UPDATE tasks SET {assignments} WHERE id = ?", (*columns.values(), task_id))
    events.emit(conn, EventKind.TASK_MOVED, caller.name, task_id, old=old, new=status)
    if status == TaskStatus.DONE and old != TaskStatus.DONE:
        _release_children(conn, caller, task_id)
    elif old == TaskStatus.DONE and status != TaskStatus.DONE:
        _hold_children(conn, caller, task_id)


def _release_children(conn: Connection, caller: Caller, task_id: int) -> None:
    """Children whose last unfinished parent this was become ready, in this transaction."""
    for child in _children(conn, task_id):
        row = conn.execute("SELECT status, assignee FROM tasks WHERE id = ?", (child,)).fetchone()
        if row["status"] == TaskStatus.TODO and not _unfinished_parents(conn, child):
            _set_status(conn, caller, child, TaskStatus.READY)
            events.emit(conn, EventKind.TASK_READY, row["assignee"], child, after=task_id)


def _hold_children(conn: Connection, caller: Caller, task_id: int) -> None:
    """A parent reopened: its ready children wait again."""
    for child in _children(conn, task_id):
        status = conn.execute("SELECT status FROM tasks WHERE id = ?", (child,)).fetchone()[0]
        if status == TaskStatus.READY:
            _set_status(conn, caller, child, TaskStatus.TODO)


def move(conn: Connection, caller: Caller, task_id: int, status: str) -> Task:
    """Move a task to any status the rules allow (moving to done releases dependents)."""
    validate.status(status)
    authority.check_task(conn, caller, task_id, "move")
    with write(conn):
        task = get(conn, task_id)
        if task.status == status:
            return task
        if status in NEEDS_PARENTS_DONE:
            waiting_on = _unfinished_parents(conn, task_id)
            if waiting_on:
                listed = ", ".join(str(parent) for parent in waiting_on)
                raise Refused(f"task {task_id} waits on unfinished task(s) {listed};"
                              f" it cannot be {status} yet")
        _set_status(conn, caller, task_id, status)
        return get(conn, task_id)


def claim(conn: Connection, caller: Caller, task_id: int | None = None) -> Task:
    """Take a ready task (given, or the next one assigned to me or unassigned) and run it."""
    if caller.is_operator:
        raise BadInput("only a session can claim a task (set BULLPEN_SESSION and BULLPEN_TOKEN)")
    with write(conn):
        if task_id is None:
            row = conn.execute(
                "SELECT id FROM tasks WHERE status = ? AND (assignee = ? OR assignee IS NULL)"
                " ORDER BY assignee IS NULL, id LIMIT 1",
                (TaskStatus.READY, caller.name)).fetchone()
            if row is None:
                raise NotFound("no ready task is assigned to you or unassigned")
            task_id = row[0]
        task = get(conn, task_id)
        won = conn.execute(
            "UPDATE tasks SET status = ?, assignee = ?, updated_at = ?"
            " WHERE id = ? AND status = ? AND (assignee IS NULL OR assignee = ?)",
            (TaskStatus.RUNNING, caller.name, time.time(), task_id, TaskStatus.READY,
             caller.name),
        ).rowcount
        if not won:
            holder = f" (assigned to {task.assignee})" if task.assignee else ""
            raise Refused(f"task {task_id} is {task.status}{holder}; it cannot be claimed")
        events.emit(conn, EventKind.TASK_MOVED, caller.name, task_id, old=TaskStatus.READY,
                    new=TaskStatus.RUNNING)
        events.emit(conn, EventKind.TASK_CLAIMED, caller.name, task_id)
        return get(conn, task_id)


def done(conn: Connection, caller: Caller, task_id: int,
         summary: str | None = None) -> tuple[Task, list[Task]]:
    """Finish a task with an optional handoff summary; returns it and the tasks it released."""
    if summary is not None:
        validate.text(summary, "summary")
    authority.check_task(conn, caller, task_id, "finish")
    with write(conn):
        task = get(conn, task_id)
        if task.status == TaskStatus.DONE:
            raise Refused(f"task {task_id} is already done")
        waiting_on = _unfinished_parents(conn, task_id)
        if waiting_on:
            raise Refused(f"task {task_id} waits on unfinished task(s)"
                          f" {', '.join(map(str, waiting_on))}; it cannot be done yet")
        waiting_children = [child for child in task.children
                            if get(conn, child).status == TaskStatus.TODO]
        _set_status(conn, caller, task_id, TaskStatus.DONE, summary=summary)
        events.emit(conn, EventKind.TASK_DONE, caller.name, task_id, summary=summary)
        released = [get(conn, child) for child in waiting_children
                    if get(conn, child).status == TaskStatus.READY]
        if task.assignee and not _open_tasks_of(conn, task.assignee):
            events.emit(conn, EventKind.SESSION_FINISHED, task.assignee, task_id)
        return get(conn, task_id), released


def _open_tasks_of(conn: Connection, assignee: str) -> int:
    return conn.execute(
        "SELECT count(*) FROM tasks WHERE assignee = ? AND status NOT IN (?, ?)",
        (assignee, *sorted(FINISHED_TASK_STATUSES))).fetchone()[0]


def block(conn: Connection, caller: Caller, task_id: int, reason: str) -> Task:
    validate.text(reason, "reason")
    authority.check_task(conn, caller, task_id, "block")
    with write(conn):
        task = get(conn, task_id)
        if task.status in FINISHED_TASK_STATUSES:
            raise Refused(f"task {task_id} is {task.status}; it cannot be blocked")
        _set_status(conn, caller, task_id, TaskStatus.BLOCKED, block_reason=reason)
        events.emit(conn, EventKind.TASK_BLOCKED, caller.name, task_id, reason=reason)
        return get(conn, task_id)


def comment(conn: Connection, caller: Caller, task_id: int, body: str) -> Comment:
    validate.text(body, "comment")
    now = time.time()
    with write(conn):
        get(conn, task_id)
        comment_id = inserted_id(conn.execute(
            "INSERT INTO task_comments (task, author, body, created_at) VALUES (?, ?, ?, ?)",
            (task_id, caller.name, body, now)))
        events.emit(conn, EventKind.TASK_COMMENTED, caller.name, task_id, comment=comment_id)
    return Comment(comment_id, caller.name, body, now)


def assign(conn: Connection, caller: Caller, task_id: int,
           assignee: str | None) -> Task:
    authority.check_task(conn, caller, task_id, "assign")
    with write(conn):
        get(conn, task_id)
        _check_assignee(conn, assignee)
        conn.execute("UPDATE tasks SET assignee = ?, updated_at = ? WHERE id = ?",
                     (assignee, time.time(), task_id))
        events.emit(conn, EventKind.TASK_ASSIGNED, caller.name, task_id, assignee=assignee)
        return get(conn, task_id)
