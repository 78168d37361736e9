"""The demo's story as checkable steps: each one looks in the store for its evidence.

A step returns `Seen(at, detail)` once it happened (`at` is the store's own timestamp)
or None. The steps only read; `story` polls them and prints each as it is seen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from board import alerts, events, history, notebook, reads, sessions, tasks
from board.connection import Connection
from board.identity import Caller
from board.models import Note
from board.plan import plan_task
from board.vocabulary import EventKind, NoteKind

SESSIONS = ("research", "coder", "reviewer")


@dataclass(frozen=True)
class Seen:
    at: float
    detail: str


@dataclass(frozen=True)
class Step:
    title: str
    check: Callable[[Connection], Seen | None]


def _done(conn: Connection, session: str) -> Seen | None:
    task = plan_task(conn, session)
    event = events.first(conn, EventKind.TASK_DONE, task)
    if event is None:
        return None
    summary = (event.data.get("summary") or "").strip()
    return Seen(event.created_at, f"task #{task} done: {summary or '(no summary)'}")


def _typed(conn: Connection, recipient: str, kind: NoteKind,
           like: str = "%") -> Seen | None:
    """The first note of `kind` to `recipient` whose body matches, typed into its pane."""
    found = history.first_typed(conn, recipient, kind, like)
    if found is None:
        return None
    note, typed_at = found
    return Seen(typed_at, f"[{kind} #{note.id}] typed into {recipient}'s pane")


def room_up(conn: Connection) -> Seen | None:
    known = sessions.all_sessions(conn)
    if {session.name for session in known} < set(SESSIONS):
        return None
    return Seen(max(session.created_at for session in known), "research, coder and reviewer"
                " started at once, each in its own worktree and pane; coder's task waits")


def research_pinged(conn: Connection) -> Seen | None:
    return _typed(conn, "research", NoteKind.HANDOFF, f"%task #{plan_task(conn, 'research')} is%")


def research_notebook(conn: Connection) -> Seen | None:
    entries = notebook.read(conn, Caller("research"), "research")  # its own: private too
    shared = sum(1 for entry in entries if not entry.private)
    private = len(entries) - shared
    if not shared or not private:
        return None
    return Seen(max(entry.created_at for entry in entries),
                f"{shared} shared and {private} private notebook entries")


def research_data(conn: Connection) -> Seen | None:
    return _change(conn, "research", "data/usage.md", committed=True)


def _change(conn: Connection, who: str, path: str, committed: bool) -> Seen | None:
    for change in history.changes_by(conn, who):
        if path in change.paths and bool(change.commit) == committed:
            state = f"commit {change.commit[:8]}" if change.commit else "uncommitted"
            return Seen(change.created_at, f"{path} ({state})")
    return None


def research_done(conn: Connection) -> Seen | None:
    return _done(conn, "research")


def coder_pinged(conn: Connection) -> Seen | None:
    research_task = plan_task(conn, "research")
    summary = tasks.get(conn, research_task).summary if research_task else None
    if not summary:
        return None
    seen = _typed(conn, "coder", NoteKind.HANDOFF, f"%{summary[:40]}%")
    return seen and Seen(seen.at, seen.detail + " with research's summary")


def coder_reads(conn: Connection) -> Seen | None:
    latest = dict(reads.of_session(conn, "coder"))  # path -> its latest read
    if not {"data/usage.md", "README.md"} <= set(latest):
        return None
    return Seen(max(latest.values()), "read data/usage.md and README.md")


def coder_note(conn: Connection) -> Seen | None:
    note = _first_note(conn, "coder", "reviewer")
    return Seen(note.created_at, f"note #{note.id}: {note.body[:60]}") if note else None


def _first_note(conn: Connection, sender: str, to: str) -> Note | None:
    return history.first_note(conn, sender, to, kind=NoteKind.NOTE)


def coder_commit(conn: Connection) -> Seen | None:
    return _change(conn, "coder", "src/app.py", committed=True)


def coder_done(conn: Connection) -> Seen | None:
    return _done(conn, "coder")


def reviewer_pinged(conn: Connection) -> Seen | None:
    return _typed(conn, "reviewer", NoteKind.PING, "coder committed %")


def reviewer_reply(conn: Connection) -> Seen | None:
    asked = _first_note(conn, "coder", "reviewer")
    if asked is None:
        return None
    reply = history.first_note(conn, "reviewer", "coder", reply_to=asked.id)
    return Seen(reply.created_at, f"note #{reply.id} re #{asked.id}") if reply else None


def coder_alerted(conn: Connection) -> Seen | None:
    found = [alert for alert in alerts.for_session(conn, "coder")  # newest first
             if alert.path == "README.md" and alert.changed_by == "reviewer"]
    if not found:
        return None
    alert = found[-1]
    typed = history.typed_at(conn, alert.note, "coder")
    if typed is None:
        return None
    return Seen(typed, f"alert #{alert.id}: README.md changed by reviewer, typed into"
                       " coder's pane")


def reviewer_done(conn: Connection) -> Seen | None:
    return _done(conn, "reviewer")


def private_hidden(conn: Connection) -> Seen | None:
    """Research's private entry reaches research only: not coder, reviewer or a search."""
    own = notebook.read(conn, Caller("research"), "research")
    secret = [entry for entry in own if entry.private]
    if not secret:
        return None
    for viewer in ("coder", "reviewer"):
        shown = {entry.id for entry in notebook.read(conn, Caller(viewer), "research")}
        shown |= {entry.id for entry in notebook.search(conn, Caller(viewer), "XML")}
        if any(entry.id in shown for entry in secret):
            raise AssertionError(f"research's private entry is visible to {viewer}")
    return Seen(secret[-1].created_at, "coder and reviewer cannot read or find it")


def in_order(conn: Connection) -> Seen | None:
    """research done < coder pinged; coder done < reviewer done."""
    found = [research_done(conn), coder_pinged(conn), coder_done(conn), reviewer_done(conn)]
    if any(seen is None for seen in found):
        return None
    times = [seen.at for seen in found if seen]
    if times != sorted(times):
        raise AssertionError("the plan ran out of order: research done, coder pinged, coder"
                             f" done, reviewer done at {times}")
    return Seen(times[-1], "research → coder → reviewer, no human input")


STEPS: tuple[Step, ...] = (
    Step("the room is up", room_up),
    Step("research is pinged with its task", research_pinged),
    Step("research writes its notebook, one entry private", research_notebook),
    Step("research writes data/usage.md and commits it", research_data),
    Step("research marks its task done with a summary", research_done),
    Step("the coder is pinged with research's handoff", coder_pinged),
    Step("the coder reads the data (bullpen read)", coder_reads),
    Step("the coder sends the reviewer a note", coder_note),
    Step("the coder commits src/app.py", coder_commit),
    Step("the coder marks its task done", coder_done),
    Step("the reviewer is pinged with the commit", reviewer_pinged),
    Step("the reviewer answers, quoting the coder's note by id", reviewer_reply),
    Step("README.md, which the coder read, changed: the coder is alerted", coder_alerted),
    Step("the reviewer marks its task done", reviewer_done),
    Step("research's private entry is hidden from the others", private_hidden),
    Step("the plan ran in order", in_order),
)
