"""What the dashboard shows, read from the store: one snapshot, then deltas from events.

Plain Python (no Textual): the tail thread calls these, the widgets only render the
results. A delta touches only what its events name, so a room with 5,000 tasks costs
a few rows per event, not a reload.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from board import attention, budgets, conflicts, machines, notebook, notes, sessions, spend, views
from board.attention import Delivery, HeldNote
from board.connection import Connection
from board.db import is_postgres
from board.models import Event, Note, NotebookEntry, Session, Task
from board.records import replace  # a Session is a record
from board.views import AlertRow
from board.vocabulary import EventKind, TaskStatus
from workers.agents.levers import lost_levers

STREAM_HISTORY = 200  # notes loaded at start; older ones stay in the store
DELIVERY_WINDOW = 200  # the newest notes whose delivery states the stream keeps fresh
NOTEBOOK_HISTORY = 50
ALERT_ROWS = 100
# Events shown in the stream as system lines; the rest are noise or shown another way
# (a note_sent event shows as its note, a notebook_written event as its entry).
STREAM_EVENTS = frozenset({
    EventKind.TASK_ADDED, EventKind.TASK_MOVED, EventKind.TASK_DONE, EventKind.TASK_BLOCKED,
    EventKind.TASK_ASSIGNED, EventKind.TASK_COMMENTED, EventKind.TASK_LINKED,
    EventKind.SESSION_REGISTERED, EventKind.SESSION_STATUS, EventKind.SESSION_FINISHED,
    EventKind.CHANGE_RECORDED,
})


class StreamKind(StrEnum):
    """What a stream line is besides a note (whose line kind is its `NoteKind`)."""

    NOTEBOOK = "notebook"  # a notebook entry
    EVENT = "event"  # a board event, shown as a system line


@dataclass(frozen=True)
class SessionRow:
    """A session with its unread note count and why it is in its status (the question
    of a session that needs input), when the store records one."""

    session: Session
    unread: int
    reason: str | None = None
    conflicts: tuple[str, ...] = ()  # sessions (or the base branch) its work clashes with
    spent: spend.Spent = field(default_factory=spend.Spent)  # from its agent's records
    over_budget: str | None = None  # why its notes are held `budget` (board/budgets.py)
    levers: tuple[str, ...] = ()  # what its agent's release cannot hold (`deny not enforced`)
    budget_blind: str | None = None  # why its budget cannot be enforced (spend unreadable)


@dataclass(frozen=True)
class StreamItem:
    """One line of the note stream: a note, a notebook entry or a system event."""

    at: float
    kind: str  # a NoteKind, or a StreamKind
    who: str
    to: str | None
    text: str
    ref: int | None = None
    private: bool = False
    reply_to: int | None = None
    flip: bool = False  # a session's status change: hidden from the stream by default

    def involves(self, session: str) -> bool:
        """True when the item was sent by, to, or about `session` (or to everyone)."""
        return session in (self.who, self.to) or self.to == "*"


@dataclass
class RoomDelta:
    """What changed since the last delta; the first one (`initial`) holds everything."""

    last_event: int
    initial: bool = False
    tasks: list[Task] = field(default_factory=list)
    removed_tasks: set[int] = field(default_factory=set)
    stream: list[StreamItem] = field(default_factory=list)
    sessions: list[SessionRow] | None = None
    alerts: list[AlertRow] | None = None
    changed_sessions: set[str] = field(default_factory=set)  # committed, edited or landed
    last_note: int = 0
    held: list[HeldNote] | None = None  # notes held back from panes (with `sessions`)
    deliveries: dict[int, list[Delivery]] | None = None  # of the newest notes
    sessions_dirty: bool = False  # the tail fills `sessions`, `alerts`, and (after a
    alerts_dirty: bool = False  # delivery moved on) `held` and `deliveries`, throttled
    deliveries_dirty: bool = False


def session_rows(conn: Connection, here: str | None = None) -> list[SessionRow]:
    """Every session with its unread count, spend and budget (a few queries); seen from
    machine `here`, a session whose machine stopped beating is `unreachable`, as in ls."""
    unread = views.unread_counts(conn)
    spent = spend.by_session(conn)
    over = budgets.over(conn)
    blind = budgets.unenforceable(conn, spent)
    reasons = attention.status_reasons(conn)
    clashes: dict[str, list[str]] = {}
    for found in conflicts.open_conflicts(conn):
        clashes.setdefault(found.a, []).append(found.b)
        if not found.with_base:
            clashes.setdefault(found.b, []).append(found.a)
    return [SessionRow(s, unread.get(s.name, 0), reasons.get(s.name),
                       tuple(clashes.get(s.name, ())), spent.get(s.name, spend.Spent()),
                       (budgets.reached(conn, s.name, spent) or "budget reached")
                       if s.name in over else None,
                       lost_levers(s.agent, s.agent_version, s.deliver), blind.get(s.name))
            for s in _as_seen(conn, sessions.all_sessions(conn), here)]


def _as_seen(conn: Connection, known: list[Session], here: str | None) -> list[Session]:
    if here is None or not is_postgres(conn):
        return known
    beats = machines.beats(conn)
    return [replace(s, status=machines.shown_status(s.status, s.machine, here, beats))
            for s in known]


def note_item(note: Note) -> StreamItem:
    return StreamItem(note.created_at, note.kind, note.sender, note.recipient, note.body,
                      note.id, reply_to=note.reply_to)


def entry_item(entry: NotebookEntry) -> StreamItem:
    return StreamItem(entry.created_at, StreamKind.NOTEBOOK, entry.author, None, entry.body,
                      entry.id, private=entry.private)


def event_item(event: Event) -> StreamItem | None:
    """A system line for an event worth showing, or None."""
    data, ref = event.data, event.ref
    kind = event.kind
    if kind == EventKind.TASK_MOVED:  # into done or blocked too: `task move` says no more
        text = f"task #{ref} {data.get('old')} → {data.get('new')}"
    elif kind == EventKind.TASK_DONE:
        summary = data.get("summary")
        text = f"task #{ref} done" + (f": {summary}" if summary else "")
    elif kind == EventKind.TASK_BLOCKED:
        text = f"task #{ref} blocked: {data.get('reason')}"
    elif kind == EventKind.TASK_ADDED:
        text = f"task #{ref} added ({data.get('status')})"
    elif kind == EventKind.TASK_ASSIGNED:
        text = f"task #{ref} assigned to {data.get('assignee') or 'nobody'}"
    elif kind == EventKind.TASK_COMMENTED:
        text = f"comment on task #{ref}"
    elif kind == EventKind.TASK_LINKED:
        text = f"task #{ref} waits for #{data.get('parent')}"
    elif kind == EventKind.SESSION_STATUS:
        status = str(data.get("status") or "?").replace("_", " ")
        reason = data.get("reason")
        return StreamItem(event.created_at, StreamKind.EVENT, event.session or "?", None,
                          f"is {status}" + (f": {reason}" if reason else ""), ref, flip=True)
    elif kind == EventKind.CHANGE_RECORDED:
        paths = data.get("paths") or []
        text = f"changed {', '.join(paths[:3])}" + (" …" if len(paths) > 3 else "")
    elif kind in STREAM_EVENTS:
        text = kind.removeprefix("session_").replace("_", " ")
    else:
        return None
    return StreamItem(event.created_at, StreamKind.EVENT, event.session or "?", None, text, ref)


# Events after which a session's code stands elsewhere (its files, its commits, the base).
_CODE_MOVED = frozenset({EventKind.CHANGE_RECORDED, EventKind.SESSION_LANDED})
# Events that follow a task's move in the same transaction and say more about it.
_SAYS_MORE: dict[str, TaskStatus] = {EventKind.TASK_DONE: TaskStatus.DONE,
                                     EventKind.TASK_BLOCKED: TaskStatus.BLOCKED}


def load_snapshot(conn: Connection, here: str | None = None) -> RoomDelta:
    """Everything the dashboard shows at start, as one `initial` delta."""
    last_event = views.last_event_id(conn)
    recent = notes.recent(conn, STREAM_HISTORY)
    stream = [note_item(note) for note in recent]
    stream += [entry_item(entry) for entry in notebook.operator_view(conn, NOTEBOOK_HISTORY)]
    stream.sort(key=lambda item: item.at)
    last_note = recent[-1].id if recent else 0
    return RoomDelta(
        last_event=last_event, initial=True, tasks=views.all_cards(conn), stream=stream,
        sessions=session_rows(conn, here), alerts=views.alerts_with_state(conn, ALERT_ROWS),
        last_note=last_note, held=attention.held_notes(conn),
        deliveries=attention.deliveries_of(conn, [note.id for note in recent]),
    )


def load_delta(conn: Connection, events: list[Event], last_note: int) -> RoomDelta:
    """The changes named by `events` (oldest first), reading only the rows they touch.

    Sessions and alerts are only flagged: their rows are read by `fill_panels`, which the
    tail throttles (an unread count per note would cost more than the note itself)."""
    delta = RoomDelta(last_event=events[-1].id, last_note=last_note)
    task_ids: set[int] = set()
    entry_ids: set[int] = set()
    new_notes = sessions_dirty = alerts_dirty = delivery_dirty = False
    stream: list[StreamItem] = []
    for event in events:
        kind = event.kind
        if kind.startswith("task_") and event.ref is not None:
            task_ids.add(event.ref)
        elif kind == EventKind.NOTE_SENT:
            new_notes = sessions_dirty = True
        elif kind.startswith(("notes_", "chain_")):  # read, delivered, held, a loop …
            sessions_dirty = alerts_dirty = delivery_dirty = True
        elif kind == EventKind.NOTEBOOK_WRITTEN and event.ref is not None:
            entry_ids.add(event.ref)
        elif kind == EventKind.ALERT_RAISED:
            alerts_dirty = True
        elif kind.startswith(("session_", "conflict_", "spend_", "budget_")):  # badges too
            sessions_dirty = True
        if kind in _CODE_MOVED and event.session:
            delta.changed_sessions.add(event.session)
        item = event_item(event)
        if item is None:
            continue
        last = stream[-1] if stream else None
        if (kind in _SAYS_MORE and last is not None and last.kind == StreamKind.EVENT
                and last.ref == event.ref and last.text.endswith(f"→ {_SAYS_MORE[kind]}")):
            stream[-1] = item  # `done`/`block` moved it: one line, with summary or reason
        else:
            stream.append(item)
    if new_notes:
        fresh = views.notes_after(conn, last_note)
        stream += [note_item(note) for note in fresh]
        if fresh:
            delta.last_note = fresh[-1].id
            # A new note's own states (queued, mostly): only its rows, not the window.
            delta.deliveries = attention.deliveries_of(conn, [note.id for note in fresh])
    stream += [entry_item(entry) for entry in views.notebook_entries(conn, entry_ids)]
    delta.stream = sorted(stream, key=lambda item: item.at)
    delta.tasks, delta.removed_tasks = views.tasks_by_ids(conn, task_ids)
    delta.sessions_dirty, delta.alerts_dirty = sessions_dirty, alerts_dirty
    delta.deliveries_dirty = delivery_dirty
    return delta


def fill_panels(conn: Connection, delta: RoomDelta, sessions_too: bool,
                alerts_too: bool, deliveries_too: bool = False,
                here: str | None = None) -> None:
    """Read the sessions and alerts panels' rows into `delta` (each a whole, small table),
    and after deliveries moved on, the held notes and the newest notes' states."""
    if sessions_too:
        delta.sessions = session_rows(conn, here)
    if deliveries_too:
        delta.held = attention.held_notes(conn)
        newest = delta.last_note
        window = attention.deliveries_of(
            conn, range(max(newest - DELIVERY_WINDOW, 0) + 1, newest + 1))
        delta.deliveries = {**(delta.deliveries or {}), **window}
    if alerts_too:
        delta.alerts = views.alerts_with_state(conn, ALERT_ROWS)
