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


DIFF = """diff --git a/src/api/usage.py b/src/api/usage.py
new file mode 100644
--- /dev/null
+++ b/src/api/usage.py
@@ -0,0 +1,3 @@
+def usage(request):
+    \"\"\"Monthly usage for the caller.\"\"\"
+    return {"calls": 42}
"""


class FakeActions:
    """Records every session action; the preview is a fixed text."""

    def __init__(self, preview: str = PREVIEW) -> None:
        self.calls: list[tuple[str, str, dict]] = []
        self.preview = preview
        self.attention: list[int] = []  # every count shown in the tmux status line
        self.coordinator: str | None = None  # the coordinator's trouble, as ls shows it
        self.flows: dict = {}  # name -> workers.room.code_view.CodeFlow, as code_flows says
        self.asked: list = []  # what questions() returns
        self.answer_refusal: str | None = None  # answer() raises Refused with it
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

    def spawn(self, name: str, agent: str | None = None, task: str | None = None,
              deliver: str | None = None) -> None:
        self._record("spawn", name, agent=agent, task=task, deliver=deliver)

    def stop(self, name: str) -> None:
        self._record("stop", name)

    def restart(self, name: str) -> None:
        self._record("restart", name)

    def rm(self, name: str) -> None:
        self._record("rm", name)

    def changed_files(self, name: str) -> int | None:
        return {"research": 0, "coder": 3, "reviewer": 1}.get(name)

    def keep_coordinator(self) -> bool:
        self._record("keep_coordinator", "")
        return False

    def coordinator_state(self) -> str | None:
        return self.coordinator

    def show_attention(self, count: int) -> None:
        with self._lock:
            self.attention.append(count)

    def diff(self, name: str) -> str:
        return DIFF if name == "coder" else ""

    def changed_paths(self, name: str) -> list[str]:
        return {"coder": ["src/api/usage.py", "tests/test_usage.py", "README.md"],
                "reviewer": ["notes/review.md"]}.get(name, [])

    def code_flows(self) -> dict:
        return dict(self.flows)

    def landing_preview(self, name: str):  # noqa: ANN201 - a workers.room.land.LandingPreview
        from workers.room.code_view import CodeFlow
        from workers.room.land import LandingPreview

        return LandingPreview(name, "main", "merge", None,
                              self.flows.get(name, CodeFlow(ahead=1, session=name)))

    def land(self, name: str, on_output, accepted: tuple = ()) -> str:  # noqa: ANN001
        self._record("land", name)
        return f"landed {name} on main: 1111111 -> 2222222 (1 commit, merge)"

    def questions(self) -> list:
        return list(self.asked)  # workers.room.answers.Question rows a test sets

    def answer(self, name: str, choice: str, question_id: str) -> None:
        from board.errors import Refused

        self._record("answer", name, choice=choice, question=question_id)
        if self.answer_refusal:
            raise Refused(self.answer_refusal)


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


QUESTION = "Do you want to proceed? (y/n)"
LONG_TITLES = ("Write the usage endpoint tests", "Document the rate limit header")  # 30 each


def _ensure_column(conn: sqlite3.Connection, table: str, column: str) -> None:
    """Add a column the delivery work (issue 11) brings, on stores from before it."""
    names = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
    if column not in names:
        conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")


def _deliver(conn: sqlite3.Connection, note: int, recipient: str, state: str,
             reason: str | None = None) -> None:
    read_at = BASE_TIME if state == "read" else None
    via = {"typed": "pane", "handed": "hook", "read": "inbox"}.get(state)
    conn.execute("UPDATE deliveries SET state = ?, via = ?, read_at = ?, held_reason = ?"
                 " WHERE note = ? AND recipient = ?", (state, via, read_at, reason, note,
                                                       recipient))


def populate_team(conn: sqlite3.Connection) -> None:
    """Issue 14's data set: 3 sessions (reviewer needs input, with a question), 10 tasks
    across 4 statuses with two 30-character titles, notes of each kind in each delivery
    state (one held, one a reply), two alerts, one private notebook entry."""
    for name, agent in (("research", "hermes -p research"), ("coder", "claude"),
                        ("reviewer", "/usr/bin/python3 tests/agents/scripted_agent.py")):
        sessions.register(conn, name, agent=agent, branch=f"bullpen/{name}",
                          worktree=f"/repo/.bullpen/worktrees/{name}")
    for name, status in (("research", "idle"), ("coder", "working"),
                         ("reviewer", "needs_input")):
        sessions.set_status(conn, name, status, activity_at=BASE_TIME)
    research, coder = Caller("research"), Caller("coder")
    gather = tasks.add(conn, OPERATOR, "Gather usage data", assignee="research")
    tests_task = tasks.add(conn, OPERATOR, LONG_TITLES[0], assignee="coder", after=[gather.id])
    tasks.add(conn, OPERATOR, "Review the endpoint", assignee="reviewer", after=[tests_task.id])
    docs = tasks.add(conn, OPERATOR, LONG_TITLES[1], assignee="coder")
    cache = tasks.add(conn, OPERATOR, "Cache the usage query", assignee="coder")
    tasks.add(conn, OPERATOR, "Triage flaky CI", status="triage")
    deploy = tasks.add(conn, OPERATOR, "Deploy preview env")
    review = [tasks.add(conn, OPERATOR, title, assignee=who) for title, who in (
        ("Refactor config loader", "coder"), ("Fix login redirect", "research"),
        ("Tidy the logging setup", None))]
    for task in (gather, docs, cache):
        tasks.move(conn, research if task is gather else coder, task.id, "running")
    tasks.move(conn, OPERATOR, 6, "todo")
    tasks.block(conn, OPERATOR, deploy.id, "needs credentials")
    for task in review:
        tasks.move(conn, OPERATOR, task.id, "review")

    first = notes.send(conn, research, "coder", "usage data is in data/usage.md")
    notes.send(conn, coder, "research", "thanks, which endpoint first?\nI can start with"
               " /usage and leave /billing for later.", reply_to=None)
    notes.send(conn, OPERATOR, "all", "standup in 10 minutes")
    notes.send(conn, research, "coder", "3 endpoints, start with /usage; numbers in"
               " data/usage.md", kind="handoff")
    notes.send(conn, "bullpen", "coder", "task #2 is ready: research handed off", kind="ping")
    notes.send(conn, coder, "reviewer", "please look at #8 when you can")
    notes.send(conn, "bullpen", "reviewer", "coordinator restarted", kind="system")
    notebook.write_entry(conn, research, "usage spikes at 09:00 UTC")
    notebook.write_entry(conn, coder, "my private scratch: try caching", private=True)
    reads.record(conn, "reviewer", ["src/app.py", "README.md"])
    _age(conn, "reads")
    alerts.record_change(conn, "coder", ["src/app.py"], commit="abc1234def5678",
                         message="faster handler")
    alerts.record_change(conn, "coder", ["README.md"])
    with write(conn):
        _ensure_column(conn, "sessions", "status_reason")
        _ensure_column(conn, "deliveries", "held_reason")
        conn.execute("UPDATE sessions SET status_reason = ? WHERE name = 'reviewer'",
                     (QUESTION,))
        conn.execute("UPDATE notes SET reply_to = ? WHERE id = 2", (first.id,))
        for note, recipient, state, reason in (
                (1, "coder", "read", None), (2, "research", "typed", None),
                (3, "research", "read", None), (3, "coder", "handed", None),
                (3, "reviewer", "queued", None), (4, "coder", "handed", None),
                (5, "coder", "queued", None), (6, "reviewer", "held", "not at its prompt"),
                (7, "reviewer", "typed", None), (8, "reviewer", "read", None)):
            _deliver(conn, note, recipient, state, reason)
    fix_times(conn)


DEMO_TITLES = ("Gather the /users usage data into data/usage.md, then mark your task done",
               "Implement what data/usage.md asks for in src/app.py",
               "Review each commit from coder")  # the demo's plan (workers/demo/story.py)


def populate_demo(conn: sqlite3.Connection) -> None:
    """The state `bullpen demo` ends in: research, coder and reviewer idle, their three
    tasks done (the board's other columns empty), the notes they sent each other. The
    done cards' code marks come from `demo_flows` (FakeActions.flows)."""
    for name in ("research", "coder", "reviewer"):
        sessions.register(conn, name, agent="/usr/bin/python3 -m workers.demo.agents",
                          branch=f"bullpen/{name}", worktree=f"/repo/.bullpen/worktrees/{name}")
        sessions.set_status(conn, name, "idle", activity_at=BASE_TIME)
    for title, who in zip(DEMO_TITLES, ("research", "coder", "reviewer"), strict=True):
        task = tasks.add(conn, OPERATOR, title, assignee=who)
        tasks.done(conn, Caller(who), task.id, f"{who}'s summary")
    research, coder, reviewer = Caller("research"), Caller("coder"), Caller("reviewer")
    notes.send(conn, research, "coder", "83% of /users callers want JSON", kind="handoff")
    asked = notes.send(conn, coder, "reviewer", "please review handler(format='json')")
    notes.send(conn, reviewer, "coder", "looks good; README needs the format flag",
               reply_to=asked.id)
    alerts.record_change(conn, "reviewer", ["README.md"])
    fix_times(conn)


def demo_flows() -> dict:
    """Where the demo's sessions' code stands: coder's ready to land, the others hold
    nothing the base lacks (as `bullpen ls` says after the demo)."""
    from workers.room.code_view import CodeFlow

    return {"research": CodeFlow(ahead=0, behind=1, session="research"),
            "coder": CodeFlow(ahead=2, behind=0, ready=True, session="coder"),
            "reviewer": CodeFlow(ahead=0, behind=2, session="reviewer")}
