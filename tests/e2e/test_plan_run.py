"""Promise 4, parallel work and pinging: research -> code -> review from one `up`, with no
input, in order; and a coordinator killed mid-plan loses and repeats no ping."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from tests.conftest import git
from tests.e2e.conftest import Plan
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

SUMMARY = "usage is in data/usage.md: 83% want JSON"
READY = r"task #(?P<task>\d+) is ready"
COMMIT = r"\[ping #\d+ from bullpen\] coder committed (?P<sha>[0-9a-f]+)"


def sessions_of_plan() -> dict[str, dict[str, Any]]:
    return {"research": {"task": "Gather the usage data"},
            "coder": {"after": ["research"], "task": "Implement the endpoint"},
            "reviewer": {"on_commit": "coder", "task": "Review coder's commits"}}


def scripts(plan: Plan, research_finishes: bool = True) -> dict[str, list[dict[str, Any]]]:
    """Research gathers and finishes; coder commits and finishes; reviewer finishes on
    the commit ping (its task id kept in a file between the two lines it reacts to)."""
    task_file = plan.live.logs / "reviewer.task"
    research = [{"on": READY, "run": ["bullpen", "task", "claim", "{task}"]}]
    if research_finishes:
        research += [
            {"on": READY, "run": ["sh", "-c", "mkdir -p data && echo '83% JSON' >"
                                  " data/usage.md && git add data && git commit -qm data"]},
            {"on": READY, "run": ["bullpen", "task", "done", "{task}", "--summary", SUMMARY]}]
    return {
        "research": research,
        "coder": [
            {"on": READY, "run": ["bullpen", "task", "claim", "{task}"]},
            {"on": READY, "run": ["sh", "-c", "echo 'def handler(): return \"json\"' >"
                                  " src/app.py && git commit -qam 'JSON endpoint'"]},
            {"on": READY, "run": ["bullpen", "task", "done", "{task}", "--summary", "done"]}],
        "reviewer": [
            {"on": READY, "run": ["sh", "-c", f"printf %s {{task}} > {task_file}"]},
            {"on": READY, "run": ["bullpen", "task", "claim", "{task}"]},
            {"on": COMMIT, "run": ["sh", "-c", f'bullpen task done "$(cat {task_file})"'
                                   " --summary 'reviewed {sha}'"]}],
    }


def task_ids(plan: Plan) -> dict[str, int]:
    return dict(plan.live.db().execute("SELECT session, task FROM plan_tasks").fetchall())


def done_events(plan: Plan) -> dict[int, tuple[int, float]]:
    """task id -> (event id, time) of its `task_done` event."""
    rows = plan.live.db().execute(
        "SELECT ref, id, created_at FROM events WHERE kind = 'task_done'").fetchall()
    return {ref: (event_id, at) for ref, event_id, at in rows}


def wait_plan_done(plan: Plan, timeout: float = 30.0) -> dict[str, int]:
    ids = task_ids(plan)
    wait_until(lambda: set(ids.values()) <= set(done_events(plan)), timeout,
               message=lambda: f"every plan task done: {plan.live.cli('task', 'ls').stdout}"
                               f" coder got {plan.live.lines_of('coder')}")
    return ids


def assert_pinged_once(plan: Plan) -> None:
    """Each ping the dispatcher sent reached its recipient's input exactly once."""
    sent = plan.live.db().execute(
        "SELECT n.id, n.recipient FROM dispatched d JOIN notes n ON n.id = d.note"
        " WHERE n.recipient != 'operator'").fetchall()
    assert sent
    for note_id, recipient in sent:
        counts = Counter(t["id"] for t in plan.typed(recipient))
        assert counts[note_id] == 1, (note_id, recipient, plan.live.lines_of(recipient))
    for name in ("research", "coder", "reviewer"):
        repeated = [i for i, n in Counter(t["id"] for t in plan.typed(name)).items() if n > 1]
        assert not repeated, (name, plan.live.lines_of(name))


def test_three_stage_plan_runs_in_order_with_no_input(plan: Plan) -> None:
    plan.write(sessions_of_plan(), scripts(plan))
    plan.up()
    ids = wait_plan_done(plan)
    done = done_events(plan)
    research_done, coder_done, reviewer_done = (done[ids[n]] for n in
                                                ("research", "coder", "reviewer"))
    assert research_done[0] < coder_done[0] < reviewer_done[0]

    # The coder did nothing before research was done: its first input is the handoff.
    coder_lines = plan.log_times("coder")
    assert coder_lines and all(at > research_done[1] for at, _ in coder_lines)
    first = coder_lines[0][1]
    assert f"task #{ids['coder']} is ready" in first
    assert f"Handoff from research (task #{ids['research']} Gather the usage data): {SUMMARY}" \
        in first
    claimed = plan.live.db().execute("SELECT min(id) FROM events WHERE kind = 'task_claimed'"
                                     " AND ref = ?", (ids["coder"],)).fetchone()[0]
    assert claimed > research_done[0]

    # The reviewer was pinged with the coder's commit: id, message, files.
    head = git(plan.repo, "rev-parse", "bullpen/coder").strip()
    commit_line = plan.live.wait_for_line("reviewer", f"coder committed {head[:12]}")
    assert '"JSON endpoint" touching src/app.py' in commit_line
    assert plan.live.db().execute("SELECT summary FROM tasks WHERE id = ?",
                                  (ids["reviewer"],)).fetchone()[0] == f"reviewed {head[:12]}"
    assert_pinged_once(plan)
    finished = [n["body"] for n in json.loads(plan.live.cli("note", "inbox", "--json").stdout)]
    assert any("coder finished its last task" in body for body in finished)


def test_killed_coordinator_mid_plan_then_up_finishes_every_ping_once(plan: Plan) -> None:
    plan.write(sessions_of_plan(), scripts(plan, research_finishes=False))
    plan.up()
    ids = task_ids(plan)
    plan.live.wait_for_line("research", f"task #{ids['research']} is ready")
    wait_until(lambda: plan.live.db().execute("SELECT status FROM tasks WHERE id = ?", (
        ids["research"],)).fetchone()[0] == "running", 15, message="research claiming")

    plan.live.kill_coordinator()

    # Research finishes while nobody dispatches: the coder's turn waits in the store.
    plan.live.cli("task", "done", str(ids["research"]), "--summary", SUMMARY,
                  env=plan.as_session("research"))
    panes_before = {name: row["pane"] for name, row in plan.live.sessions().items()}
    assert not any("is ready" in line for line in plan.live.lines_of("coder"))

    plan.up()  # a new coordinator picks up where the dead one stopped
    wait_plan_done(plan)
    assert {name: row["pane"] for name, row in plan.live.sessions().items()} == panes_before
    assert SUMMARY in plan.live.wait_for_line("coder", f"task #{ids['coder']} is ready")
    assert_pinged_once(plan)
