"""Promise 3, change alerts: A changes a file B read while B works; B is told in its pane
and its alerts which file, changed by whom, and how to see the change; an edit made
while no coordinator watched is reported by the next one, once."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import Plan
from tests.waiting import wait_until
from workers.coordinator.missed_edits import WATCHED_FILE

pytestmark = pytest.mark.slow


def test_b_is_alerted_in_its_pane_when_a_changes_a_file_b_read(plan: Plan) -> None:
    plan.write(
        {"a": {}, "b": {"task": "Refactor the handler"}},
        # B takes its task and reads src/app.py in its own worktree, then works on.
        {"b": [{"on": r"task #(?P<task>\d+) is ready",
                "run": ["bullpen", "task", "claim", "{task}"]},
               {"on": r"task #(?P<task>\d+) is ready", "run": ["bullpen", "read", "src/app.py"]}]})
    plan.up()
    wait_until(lambda: plan.cli_as("b", "alerts") == [] and any(
        t["status"] == "running" for t in plan.cli_as("b", "task", "ls", "--mine")), 15,
        message="B working on its task")
    wait_until(lambda: plan.live.db().execute(
        "SELECT count(*) FROM reads WHERE session = 'b' AND path = 'src/app.py'"
    ).fetchone()[0], 15, message="B's read of src/app.py")

    (plan.worktree("a") / "src" / "app.py").write_text("def handler():\n    return 'v2'\n")

    line = plan.live.wait_for_line("b", "[change alert]")
    assert line.startswith("[alert #")
    assert "from bullpen]" in line
    assert "src/app.py changed by session a, uncommitted" in line
    assert "bullpen diff a -- src/app.py" in line

    [alert] = plan.cli_as("b", "alerts")
    assert (alert["path"], alert["changed_by"], alert["commit"]) == ("src/app.py", "a", None)
    assert plan.cli_as("a", "alerts") == []  # the writer is not alerted about itself
    # B was working all along: its task is still running.
    assert [t["status"] for t in plan.cli_as("b", "task", "ls", "--mine")] == ["running"]
    shown = plan.live.cli("diff", "a", "--", "src/app.py").stdout
    assert "+    return 'v2'" in shown


def test_an_edit_made_while_no_coordinator_watched_still_alerts_once(plan: Plan) -> None:
    plan.write(
        {"a": {}, "b": {"task": "Refactor the handler"}},
        {"b": [{"on": r"task #(?P<task>\d+) is ready", "run": ["bullpen", "read", "src/app.py"]}]})
    plan.up()
    wait_until(lambda: plan.live.db().execute(
        "SELECT count(*) FROM reads WHERE session = 'b' AND path = 'src/app.py'"
    ).fetchone()[0], 15, message="B's read of src/app.py")
    watched = plan.live.home / WATCHED_FILE
    wait_until(watched.exists, 15, message="the coordinator to be watching")
    plan.live.kill_coordinator(timeout=15)

    edited = plan.worktree("a") / "src" / "app.py"
    edited.write_text("def handler():\n    return 'v2'\n")
    plan.up()

    line = plan.live.wait_for_line("b", "[change alert]")
    assert "src/app.py changed by session a, uncommitted" in line
    [alert] = plan.cli_as("b", "alerts")
    assert (alert["path"], alert["changed_by"], alert["commit"]) == ("src/app.py", "a", None)

    # Killed again once this coordinator's mark covers the edit (its catch-up marks when
    # done): the edit is not reported a second time by the next one.
    wait_until(lambda: watched.stat().st_mtime > edited.stat().st_mtime, 15,
               message="the coordinator's mark to cover the edit")
    plan.live.kill_coordinator(timeout=15)
    before = watched.stat().st_mtime
    plan.up()
    wait_until(lambda: watched.stat().st_mtime > before, 15,
               message="the next coordinator to have caught up and be watching")
    assert len(plan.cli_as("b", "alerts")) == 1
