"""The coordinator never dies on data: a commit subject with terminal escapes or 9,000
characters is cleaned and recorded, and notes keep flowing — also after down/up, when
the start-up catch-up meets such a commit again."""

from __future__ import annotations

import pytest

from tests.conftest import git
from tests.e2e.conftest import Plan
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

ESCAPES = "fix\x1b[2J\x1b]0;owned\x07 the handler"
LONG = "refactor " + "x" * 9_000


def _commit(plan: Plan, name: str, text: str, subject: str) -> str:
    worktree = plan.worktree(name)
    (worktree / "src" / "app.py").write_text(text)
    git(worktree, "commit", "-qam", subject)
    return git(worktree, "rev-parse", "HEAD").strip()


def _alert_for(plan: Plan, commit: str) -> dict | None:
    return next((a for a in plan.cli_as("b", "alerts") if a["commit"] == commit), None)


def test_poisonous_commit_subjects_are_cleaned_and_notes_still_flow(plan: Plan) -> None:
    plan.write({"a": {}, "b": {}},
               {"b": [{"on": "<start>", "run": ["bullpen", "read", "src/app.py"]}]})
    plan.up()
    wait_until(lambda: plan.live.db().execute(
        "SELECT count(*) FROM reads WHERE session = 'b'").fetchone()[0], 15,
        message="B's read of src/app.py")

    first = _commit(plan, "a", "v2\n", ESCAPES)
    alert = wait_until(lambda: _alert_for(plan, first), 15, message="the alert for the commit")
    assert alert["message"] == "fix the handler"  # escape sequences gone, words kept
    plan.live.wait_for_line("b", f"in commit {first[:12]} (fix the handler)")

    plan.live.cli("note", "send", "b", "still delivering after the escapes")
    plan.live.wait_for_line("b", "still delivering after the escapes")

    # Committed while no coordinator runs: the start-up catch-up records it.
    plan.live.cli("down")
    second = _commit(plan, "a", "v3\n", LONG)
    plan.live.cli("note", "send", "b", "sent while the room was down")
    plan.up()
    alert = wait_until(lambda: _alert_for(plan, second), 20,
                       message="the alert for the long subject after up")
    assert alert["message"].startswith("refactor xxx") and len(alert["message"]) <= 200
    plan.live.wait_for_line("b", "sent while the room was down", timeout=20)
    plan.live.cli("note", "send", "b", "and after the long subject")
    plan.live.wait_for_line("b", "and after the long subject")

    log = (plan.live.home / "logs" / "coordinator.log").read_text()
    assert "Traceback" not in log and "skipped" not in log
