"""Bulk read views for the human's surfaces (the dashboard, `task graph`): whole panels in
a few queries, whatever the room's size.

Read-only: nothing here writes or emits an event. Each function takes a plain
`Connection`; the dashboard calls them from its tail thread, so its event loop
never waits on SQLite (the same functions, and the same SQL, for every caller).
Private notebook entries are returned here only by `notebook_entries`, the operator's view.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from board.attention import state_word
from board.connection import Connection, Row
from board.models import Alert, Note, NotebookEntry, Task
from board.records import record
from board.vocabulary import DeliveryState


@record(frozen=True)
class AlertRow:
    """An alert with the delivery state of its note to the reader."""

    alert: Alert
    state: str  # queued | held | claimed | handed | typed | read


def last_event_id(conn: Connection) -> int:
    """The newest event id (0 for an empty log): one rowid lookup, cheap enough to poll."""
    return conn.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0]


def unread_counts(conn: Connection) -> dict[str, int]:
    """Unread notes per recipient, every session in one query (a note dropped with its
    chain never will be read; one a held chain holds still waits, and counts)."""
    rows = conn.execute(
        "SELECT recipient, count(*) FROM deliveries WHERE read_at IS NULL AND state <> ?"
        " GROUP BY recipient", (DeliveryState.DROPPED,))
    return {recipient: count for recipient, count in rows}


def alerts_with_state(conn: Connection, limit: int = 100) -> list[AlertRow]:
    """The newest alerts (newest first), each with its note's delivery state."""
    rows = conn.execute(
        "SELECT a.*, c.message, d.state AS d_state, d.via AS d_via, d.read_at AS d_read"
        " FROM alerts a"
        " JOIN changes c ON c.id = a.change"
        " LEFT JOIN deliveries d ON d.note = a.note AND d.recipient = a.session"
        " ORDER BY a.id DESC LIMIT ?", (limit,)).fetchall()
    found = []
    for row in rows:
        alert = Alert(id=row["id"], session=row["session"], path=row["path"],
                      changed_by=row["changed_by"], commit=row["commit_sha"],
                      created_at=row["created_at"], paths=tuple(json.loads(row["paths"])),
                      note=row["note"], message=row["message"])
        state = state_word(row["d_state"], row["d_via"], row["d_read"]) \
            if row["d_state"] else DeliveryState.QUEUED
        found.append(AlertRow(alert, state))
    return found


def tasks_by_ids(conn: Connection, ids: Iterable[int]) -> tuple[list[Task], set[int]]:
    """The given tasks with their parents (card fields only), and the ids that no longer exist."""
    wanted = sorted(set(ids))
    if not wanted:
        return [], set()
    marks = ",".join("?" * len(wanted))
    rows = conn.execute(f"SELECT * FROM tasks WHERE id IN ({marks})", wanted).fetchall()
    parents: dict[int, list[int]] = {}
    for parent, child in conn.execute(
            f"SELECT parent, child FROM task_links WHERE child IN ({marks})", wanted):
        parents.setdefault(child, []).append(parent)
    found = [_card(row, tuple(sorted(parents.get(row["id"], ())))) for row in rows]
    return found, set(wanted) - {task.id for task in found}


def all_cards(conn: Connection) -> list[Task]:
    """Every task as a card (parents, no children or comments): two queries, whatever
    the count. Children follow from the parents (see `task_graph`)."""
    parents: dict[int, list[int]] = {}
    for parent, child in conn.execute("SELECT parent, child FROM task_links ORDER BY parent"):
        parents.setdefault(child, []).append(parent)
    rows = conn.execute("SELECT * FROM tasks ORDER BY id").fetchall()
    return [_card(row, tuple(parents.get(row["id"], ()))) for row in rows]


def _card(row: Row, parents: tuple[int, ...]) -> Task:
    return Task(id=row["id"], title=row["title"], status=row["status"],
                assignee=row["assignee"], parents=parents, summary=row["summary"],
                body=row["body"], block_reason=row["block_reason"],
                created_by=row["created_by"], created_at=row["created_at"],
                updated_at=row["updated_at"])


def _note(row: Row) -> Note:
    return Note(id=row["id"], sender=row["sender"], recipient=row["recipient"],
                body=row["body"], reply_to=row["reply_to"], created_at=row["created_at"],
                kind=row["kind"], task=row["task"])


def notes_after(conn: Connection, after_id: int, limit: int = 500) -> list[Note]:
    """Notes newer than `after_id`, oldest first."""
    rows = conn.execute("SELECT * FROM notes WHERE id > ? ORDER BY id LIMIT ?",
                        (after_id, limit)).fetchall()
    return [_note(row) for row in rows]


def notebook_entries(conn: Connection, ids: Iterable[int]) -> list[NotebookEntry]:
    """Notebook entries by id, private ones included: the operator's view only."""
    wanted = sorted(set(ids))
    if not wanted:
        return []
    rows = conn.execute(
        f"SELECT * FROM notebook WHERE id IN ({','.join('?' * len(wanted))}) ORDER BY id",
        wanted).fetchall()
    return [NotebookEntry(id=row["id"], author=row["author"], body=row["body"],
                          private=bool(row["private"]), created_at=row["created_at"],
                          tag=row["tag"]) for row in rows]


def notebook_of(conn: Connection, author: str, limit: int = 100) -> list[NotebookEntry]:
    """One author's entries, oldest first, private ones included (each carries `private`):
    the operator's view of a session's notebook, like `notebook.operator_view`."""
    rows = conn.execute(
        "SELECT * FROM (SELECT * FROM notebook WHERE author = ? ORDER BY id DESC LIMIT ?) nb"
        " ORDER BY id", (author, limit)).fetchall()
    return [NotebookEntry(id=row["id"], author=row["author"], body=row["body"],
                          private=bool(row["private"]), created_at=row["created_at"],
                          tag=row["tag"]) for row in rows]
