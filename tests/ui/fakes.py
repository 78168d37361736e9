"""Fake data and fake session actions for the dashboard's UI tests (no tmux, no git)."""

from __future__ import annotations

import sqlite3
import threading

from board import alerts, notebook, notes, reads, sessions, tasks
from board.db import write
from board.identity import Caller

OPERATOR = Caller("operator")
BASE_TIME = 1_767_268_800.0  # 2026-01-01 12:00:00 UTC: every fake timestamp counts from here
PREVIEW = """$ hermes
Hermes Agent 0.19.0 · model stub-model
> Implement the endpoint described in data/usage.md
  reading data/usage.md
  writing src/api/usage.py (42 lines)
  running pytest -q ... 12 passed
> """


class FakeActions:
    """Records every session action; the preview is a fixed text."""

    def __init__(self, preview: str = PREVIEW) -> None:
        self.calls: list[tuple[str, str, dict]] = []
        self.preview = preview
        self._lock = threading.Lock()

    def _record(self, verb: str, name: str, **kwargs: object) -> None:
        with self._lock:
            self.calls.append((verb, name, kwargs))

    def focus(self, name: str) -> None:
        self._record("focus", name)

    def zoom(self, name: str) -> None:
        self._record("zoom", name)

    def capture(self, name: str) -> str:
        return self.preview

    def spawn(self, name: str, agent: str | None = None, task: str | None = None) -> None:
        self._record("spawn", name, agent=agent, task=task)

    def stop(self, name: str) -> None:
        self._record("stop", name)

    def restart(self, name: str) -> None:
        self._record("restart", name)

    def changed_files(self, name: str) -> int | None:
        return {"research": 0, "coder": 3, "reviewer": 1}.get(name)

    def keep_coordinator(self) -> bool:
        self._record("keep_coordinator", "")
        return False


def populate(conn: sqlite3.Connection) -> None:
    """3 sessions, 10 tasks across the columns, notes, two alerts, a private entry."""
    for name, agent, status in (("research", "hermes", "idle"), ("coder", "hermes", "working"),
                                ("reviewer", "claude", "needs_input")):
        sessions.register(conn, name, agent=agent, branch=f"bullpen/{name}",
                          worktree=f"/repo/.bullpen/worktrees/{name}")
        sessions.set_status(conn, name, status, activity_at=BASE_TIME + 600)
    research, coder = Caller("research"), Caller("coder")
    gather = tasks.add(conn, OPERATOR, "Gather usage data", assignee="research")
    build = tasks.add(conn, OPERATOR, "Implement usage endpoint", assignee="coder",
                      after=[gather.id])
    tasks.add(conn, OPERATOR, "Review the endpoint", assignee="reviewer", after=[build.id])
    tasks.add(conn, OPERATOR, "Triage flaky CI", status="triage")
    tasks.add(conn, OPERATOR, "Write the README section")
    running = tasks.add(conn, OPERATOR, "Add rate limiting", assignee="coder")
    tasks.move(conn, coder, running.id, "running")
    blocked = tasks.add(conn, OPERATOR, "Deploy preview env")
    tasks.block(conn, OPERATOR, blocked.id, "needs credentials")
    review = tasks.add(conn, OPERATOR, "Refactor config loader", assignee="coder")
    tasks.move(conn, OPERATOR, review.id, "review")
    old = tasks.add(conn, OPERATOR, "Set up the repository")
    tasks.done(conn, OPERATOR, old.id, "repo ready")
    spike = tasks.add(conn, OPERATOR, "Old spike")
    tasks.move(conn, OPERATOR, spike.id, "archived")
    tasks.comment(conn, OPERATOR, gather.id, "use last month's logs")

    notes.send(conn, research, "coder", "usage data is in data/usage.md")
    notes.send(conn, coder, "research", "thanks, which endpoint first?")
    notes.send(conn, OPERATOR, "all", "standup in 10 minutes")
    notes.send(conn, research, "coder", "handoff: 3 endpoints, start with /usage",
               kind="handoff")
    notebook.write_entry(conn, research, "usage spikes at 09:00 UTC")
    notebook.write_entry(conn, coder, "my private scratch: try caching", private=True)
    reads.record(conn, "reviewer", ["src/app.py", "README.md"])
    reads.record(conn, "research", ["src/app.py"])
    _age(conn, "reads")
    alerts.record_change(conn, "coder", ["src/app.py"], commit="abc1234def5678",
                         message="faster handler")
    alerts.record_change(conn, "coder", ["README.md"])
    notes.inbox(conn, research)  # research read its alert: delivered; reviewer's stay pending
    fix_times(conn)


def _age(conn: sqlite3.Connection, table: str) -> None:
    column = "read_at" if table == "reads" else "created_at"
    with write(conn):
        conn.execute(f"UPDATE {table} SET {column} = {column} - 3600")


def fix_times(conn: sqlite3.Connection) -> None:
    """Every timestamp the dashboard renders set to BASE_TIME + a minute per row id."""
    with write(conn):
        for table in ("tasks", "notes", "notebook", "alerts", "changes", "task_comments"):
            conn.execute(f"UPDATE {table} SET created_at = ? + id * 60", (BASE_TIME,))
        conn.execute("UPDATE tasks SET updated_at = created_at")
        conn.execute("UPDATE sessions SET last_activity = ? , created_at = ? + rowid",
                     (BASE_TIME + 600, BASE_TIME))
