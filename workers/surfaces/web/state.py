"""What the web page shows, read the way the dashboard and the CLI read it.

Questions and sessions come through the room façade (`RoomControl.questions`, `ls`),
held notes from `board.attention`, cards, budgets and the note stream from the board.
Every read here blocks (tmux, the store): the server calls it in a thread.
"""

from __future__ import annotations

from board import attention, budgets, notes, spend, tasks
from board.models import Task
from board.room import open_operator_room
from board.vocabulary import TaskStatus
from workers.room.control import RoomControl

STREAM = 40  # the newest notes shown
OPEN_CARDS = tuple(status for status in TaskStatus
                   if status not in (TaskStatus.DONE, TaskStatus.ARCHIVED))


def snapshot(control: RoomControl) -> dict:
    """The page's data as JSON: `needs` (questions, held notes, blocked cards, budgets),
    `sessions`, `cards` (the open ones), `notes` (newest first) and `columns`."""
    asked = control.questions()
    rows = control.ls()
    with open_operator_room(control.home) as room:
        conn = room.conn
        held = attention.held_notes(conn)
        cards = tasks.list_tasks(conn, statuses=OPEN_CARDS)
        spent = spend.by_session(conn)
        over = {name: budgets.reached(conn, name, spent) or "budget reached"
                for name in budgets.over(conn)}
        stream = notes.recent(conn, STREAM)
    return {
        "needs": {
            "questions": [question.to_json() for question in asked],
            "held": [{"note": item.note.id, "to": item.recipient, "from": item.note.sender,
                      "body": item.note.body, "reason": item.reason, "count": item.count}
                     for item in held],
            "blocked": [_card(card) for card in cards if card.status == TaskStatus.BLOCKED],
            "budgets": [{"session": name, "reached": why,
                         "raise": budgets.raise_command(name, why)}
                        for name, why in sorted(over.items())],
        },
        "sessions": [{"name": row.name, "status": row.status, "reason": row.reason,
                      "agent": row.agent, "branch": row.branch,
                      "spent": spend.short(spent[row.name]) if row.name in spent else ""}
                     for row in rows],
        "cards": [_card(card) for card in cards],
        "notes": [{"id": note.id, "from": note.sender, "to": note.recipient,
                   "body": note.body, "kind": note.kind, "at": note.created_at}
                  for note in sorted(stream, key=lambda note: -note.id)],
        "columns": list(TaskStatus),
    }


def _card(card: Task) -> dict:
    return {"id": card.id, "title": card.title, "status": card.status,
            "assignee": card.assignee, "blocked": card.block_reason}
