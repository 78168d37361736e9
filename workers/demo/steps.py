"""The demo's story as checkable steps: each one looks in the store for its evidence.

A step returns `Seen(at, detail)` once it happened (`at` is the store's own timestamp)
or None. The steps only read; `story` polls them and prints each as it is seen.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from board import notebook
from board.identity import Caller

SESSIONS = ("research", "coder", "reviewer")


@dataclass(frozen=True)
class Seen:
    at: float
    detail: str


@dataclass(frozen=True)
class Step:
    title: str
    check: Callable[[sqlite3.Connection], Seen | None]


def plan_task(conn: sqlite3.Connection, session: str) -> int | None:
    row = conn.execute("SELECT task FROM plan_tasks WHERE session = ?", (session,)).fetchone()
    return row[0] if row else None


def _done(conn: sqlite3.Connection, session: str) -> Seen | None:
    task = plan_task(conn, session)
    row = conn.execute("SELECT created_at, data FROM events WHERE kind = 'task_done'"
                       " AND ref = ? ORDER BY id LIMIT 1", (task,)).fetchone()
    if not row:
        return None
    summary = (json.loads(row["data"] or "{}").get("summary") or "").strip()
    return Seen(row["created_at"], f"task #{task} done: {summary or '(no summary)'}")


def _typed(conn: sqlite3.Connection, recipient: str, kind: str,
           like: str = "%") -> Seen | None:
    """The first note of `kind` to `recipient` whose body matches, typed into its pane."""
    row = conn.execute(
        "SELECT n.id, n.body, d.delivered_at FROM notes n JOIN deliveries d ON d.note = n.id"
        " WHERE d.recipient = ? AND n.kind = ? AND n.body LIKE ? AND d.state = 'delivered'"
        " AND d.via = 'pane' ORDER BY n.id LIMIT 1", (recipient, kind, like)).fetchone()
    if not row:
        return None
    return Seen(row["delivered_at"], f"[{kind} #{row['id']}] typed into {recipient}'s pane")


def room_up(conn: sqlite3.Connection) -> Seen | None:
    rows = conn.execute("SELECT name, created_at FROM sessions").fetchall()
    if {row["name"] for row in rows} < set(SESSIONS):
        return None
    return Seen(max(row["created_at"] for row in rows), "research, coder and reviewer started"
                " at once, each in its own worktree and pane; coder's task waits")


def research_pinged(conn: sqlite3.Connection) -> Seen | None:
    return _typed(conn, "research", "handoff", f"%task #{plan_task(conn, 'research')} is%")


def research_notebook(conn: sqlite3.Connection) -> Seen | None:
    rows = conn.execute("SELECT private, created_at FROM notebook WHERE author = 'research'"
                        ).fetchall()
    shared = sum(1 for row in rows if not row["private"])
    private = len(rows) - shared
    if not shared or not private:
        return None
    return Seen(max(row["created_at"] for row in rows),
                f"{shared} shared and {private} private notebook entries")


def research_data(conn: sqlite3.Connection) -> Seen | None:
    return _change(conn, "research", "data/usage.md", committed=True)


def _change(conn: sqlite3.Connection, who: str, path: str, committed: bool) -> Seen | None:
    rows = conn.execute("SELECT paths, commit_sha, created_at FROM changes WHERE changed_by = ?"
                        " ORDER BY id", (who,)).fetchall()
    for row in rows:
        if path in json.loads(row["paths"]) and bool(row["commit_sha"]) == committed:
            state = f"commit {row['commit_sha'][:8]}" if committed else "uncommitted"
            return Seen(row["created_at"], f"{path} ({state})")
    return None


def research_done(conn: sqlite3.Connection) -> Seen | None:
    return _done(conn, "research")


def coder_pinged(conn: sqlite3.Connection) -> Seen | None:
    summary = conn.execute("SELECT summary FROM tasks WHERE id = ?",
                           (plan_task(conn, "research"),)).fetchone()
    if not summary or not summary[0]:
        return None
    seen = _typed(conn, "coder", "handoff", f"%{summary[0][:40]}%")
    return seen and Seen(seen.at, seen.detail + " with research's summary")


def coder_reads(conn: sqlite3.Connection) -> Seen | None:
    rows = conn.execute("SELECT path, read_at FROM reads WHERE session = 'coder'").fetchall()
    paths = {row["path"] for row in rows}
    if not {"data/usage.md", "README.md"} <= paths:
        return None
    return Seen(max(row["read_at"] for row in rows), "read data/usage.md and README.md")


def coder_note(conn: sqlite3.Connection) -> Seen | None:
    row = _first_note(conn, "coder", "reviewer")
    return row and Seen(row["created_at"], f"note #{row['id']}: {row['body'][:60]}")


def _first_note(conn: sqlite3.Connection, sender: str, to: str) -> sqlite3.Row | None:
    return conn.execute("SELECT * FROM notes WHERE sender = ? AND recipient = ? AND"
                        " kind = 'note' ORDER BY id LIMIT 1", (sender, to)).fetchone()


def coder_commit(conn: sqlite3.Connection) -> Seen | None:
    return _change(conn, "coder", "src/app.py", committed=True)


def coder_done(conn: sqlite3.Connection) -> Seen | None:
    return _done(conn, "coder")


def reviewer_pinged(conn: sqlite3.Connection) -> Seen | None:
    return _typed(conn, "reviewer", "ping", "coder committed %")


def reviewer_reply(conn: sqlite3.Connection) -> Seen | None:
    asked = _first_note(conn, "coder", "reviewer")
    if asked is None:
        return None
    row = conn.execute("SELECT * FROM notes WHERE sender = 'reviewer' AND recipient = 'coder'"
                       " AND reply_to = ? ORDER BY id LIMIT 1", (asked["id"],)).fetchone()
    return row and Seen(row["created_at"], f"note #{row['id']} re #{asked['id']}")


def coder_alerted(conn: sqlite3.Connection) -> Seen | None:
    row = conn.execute("SELECT id, note FROM alerts WHERE session = 'coder' AND path ="
                       " 'README.md' AND changed_by = 'reviewer' ORDER BY id LIMIT 1").fetchone()
    if row is None:
        return None
    typed = conn.execute("SELECT delivered_at FROM deliveries WHERE note = ? AND state ="
                         " 'delivered' AND via = 'pane'", (row["note"],)).fetchone()
    return typed and Seen(typed[0], f"alert #{row['id']}: README.md changed by reviewer,"
                                    " typed into coder's pane")


def reviewer_done(conn: sqlite3.Connection) -> Seen | None:
    return _done(conn, "reviewer")


def private_hidden(conn: sqlite3.Connection) -> Seen | None:
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


def in_order(conn: sqlite3.Connection) -> Seen | None:
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
