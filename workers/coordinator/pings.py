"""The dispatcher: turns board events into pings, each sent exactly once.

- a task becomes ready (or a ready task is assigned) -> its assignee is pinged with the
  task and every parent's handoff summary;
- a commit lands on a session's branch -> every session subscribed with `on_commit`
  is pinged with the commit id, message and files;
- a session finishes its last task -> announced to the operator's stream.

Every ping goes through `board.pings.send_once`, keyed by its cause, so replaying
events after a crash never pings twice.
"""

from __future__ import annotations

import logging

from board import history, marks, pings, sessions, tasks, validate
from board.connection import Connection
from board.errors import BullpenError
from board.models import OPERATOR, Event
from board.vocabulary import EventKind, NoteKind, TaskStatus
from workers.agents import framing
from workers.coordinator import baton

log = logging.getLogger(__name__)

CURSOR = "dispatcher_cursor"


HANDOFF_CHARS = framing.HANDOFF_CHARS - 200  # the ping's share; ⏎ marks take the rest
MIN_TITLE = 60  # a title is cut to no less than this before anything else gives way
_ENDS = (".", "!", "?", "…", ":", ";")
# How agents run bullpen, by name: the pane's PATH holds bullpen's directory (the hooks
# and MCP entries in the agent's own config keep the absolute path).
BULLPEN = "bullpen"


def _sentence(text: str) -> str:
    """`text` ending in one stop: a title that has its own period gets no second one."""
    text = text.rstrip()
    return text if text.endswith(_ENDS) else text + "."


def _cut(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    return text[: max(0, limit - 1)].rstrip() + "…"


def ready_ping(conn: Connection, task_id: int, code: str | None = None) -> str:
    """The handoff: the task, how to claim and finish it, each parent's summary (always
    whole: the task's body, then the titles, are cut first to fit a typed line) and what
    the baton carried (`code`)."""
    task = tasks.get(conn, task_id)
    parents = [tasks.get(conn, parent_id) for parent_id in task.parents]
    body = task.body if task.body and task.body != task.title else ""

    def render(body_limit: int | None, title_limit: int | None) -> str:
        title = _cut(task.title, title_limit)
        lines = [_sentence(f"Your turn: task #{task.id} is ready — {title}")]
        if body and body_limit != 0:
            lines.append(_cut(body, body_limit))
        lines.append(f"Claim it with the tool mcp__bullpen__task_claim (id {task.id}) or:"
                     f" {BULLPEN} task claim {task.id}; when finished, mcp__bullpen__task_done"
                     f" (id {task.id}, summary: what the next session needs) or: {BULLPEN}"
                     f" task done {task.id} --summary 'what the next session needs'.")
        for parent in parents:
            who = parent.assignee or parent.created_by
            lines.append(f"Handoff from {who} (task #{parent.id}"
                         f" {_cut(parent.title, title_limit)}):"
                         f" {parent.summary or '(no summary given)'}")
        if code:
            lines.append(code)
        return "\n".join(lines)

    text = render(None, None)
    if len(text) > HANDOFF_CHARS and body:
        keep = len(body) - (len(text) - HANDOFF_CHARS)
        text = render(keep if keep >= MIN_TITLE else 0, None)
    if len(text) > HANDOFF_CHARS:
        longest = max(len(task.title), *(len(parent.title) for parent in parents))
        text = render(0 if body else None,
                      max(MIN_TITLE, longest - (len(text) - HANDOFF_CHARS)))
    return text


def commit_ping(author: str, commit: str, message: str | None, paths: list[str]) -> str:
    files = ", ".join(validate.one_line(path, 300) for path in paths[:10])
    files += f" and {len(paths) - 10} more" if len(paths) > 10 else ""
    message = validate.one_line(message) if message else None
    return (f"{author} committed {commit[:12]}" + (f" \"{message}\"" if message else "")
            + f" touching {files}. See: {BULLPEN} diff {author}")


class Dispatcher:
    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.cursor = int(marks.get_mark(conn, CURSOR) or 0)

    def handle(self, event: Event) -> None:
        try:
            if event.kind == EventKind.TASK_READY and event.session and event.ref:
                self._on_ready(event.session, event.ref)
            elif event.kind == EventKind.TASK_ASSIGNED and event.data.get("assignee") and event.ref:
                self._on_ready(event.data["assignee"], event.ref)  # handed a ready task
            elif (event.kind == EventKind.CHANGE_RECORDED and event.session
                  and event.data.get("commit")):
                self._on_commit(event.session, event)
            elif event.kind == EventKind.SESSION_FINISHED and event.session:
                pings.send_once(self.conn, f"finished:{event.session}:{event.ref}", OPERATOR,
                                   f"{event.session} finished its last task (#{event.ref}).",
                                   kind=NoteKind.SYSTEM)
        except BullpenError as error:  # the session or task vanished since, or bad data
            log.info("event %d (%s): no ping: %s", event.id, event.kind, error)
        self.cursor = event.id

    def save(self) -> None:
        marks.set_mark(self.conn, CURSOR, str(self.cursor))

    def _on_ready(self, assignee: str, task_id: int) -> None:
        if tasks.get(self.conn, task_id).status != TaskStatus.READY:
            return  # claimed or moved on before we got here
        key = f"ready:{task_id}:{assignee}"
        if pings.was_sent(self.conn, key):
            return  # replayed after a crash: the handoff (and the baton) happened
        code = baton.carry(self.conn, assignee, task_id)  # before the ping: it is in the worktree
        pings.send_once(self.conn, key, assignee, ready_ping(self.conn, task_id, code),
                        kind=NoteKind.HANDOFF, task=task_id)

    def _on_commit(self, author: str, event: Event) -> None:
        commit = event.data["commit"]
        change = history.change(self.conn, event.ref)
        paths = list(change.paths) if change else event.data.get("paths", [])
        message = change.message if change else None
        for subscriber in sessions.all_sessions(self.conn):
            if subscriber.on_commit == author:
                pings.send_once(self.conn, f"commit:{subscriber.name}:{commit}",
                                   subscriber.name, commit_ping(author, commit, message, paths),
                                   kind=NoteKind.PING)
