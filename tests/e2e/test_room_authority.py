"""Default deny in a live room: session b cannot spawn, stop, restart or remove a, nor
bring the room down; each refusal is audited; a lead granted `spawn` can spawn; a
session may stop itself. Real tmux, real git, the real CLI acting with b's own token."""

from __future__ import annotations

import json

import pytest

from tests.conftest import commit_file
from tests.e2e.conftest import Plan

pytestmark = pytest.mark.slow


def test_a_session_cannot_run_the_room_but_a_granted_lead_can_spawn(plan: Plan) -> None:
    plan.write({"a": {}, "b": {}, "lead": {"may": ["spawn"]}}, {})
    plan.up()
    plan.live.wait_status("a", "idle")
    a_before = plan.live.sessions()["a"]
    as_b = plan.as_session("b")
    agent = plan.live.agent("helper")
    attempts = {
        ("spawn", "intruder"): ["spawn", "intruder", "--agent", agent, "--no-dashboard"],
        ("stop", "a"): ["stop", "a"],
        ("restart", "a"): ["restart", "a"],
        ("stop", "a", "remove"): ["stop", "a", "--remove-worktree", "--force"],
        ("down",): ["down"],
    }
    for what, args in attempts.items():
        result = plan.live.cli(*args, env=as_b, check=False)
        assert result.returncode == 2, (what, result)
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert f"session 'b' may not {what[0]}" in result.stderr
        assert "only the operator can" in result.stderr and "Traceback" not in result.stderr

    rows = plan.live.sessions()
    assert "intruder" not in rows
    assert rows["a"]["pane"] == a_before["pane"] and rows["a"]["status"] != "stopped"
    assert plan.worktree("a").is_dir()

    audit = json.loads(plan.live.cli("audit", "--json").stdout)
    refused = [(e["actor"], e["action"], e["target"]) for e in audit if e["outcome"] == "refused"]
    assert refused == [("b", "spawn", "intruder"), ("b", "stop", "a"), ("b", "restart", "a"),
                       ("b", "stop", "a"), ("b", "down", None)]
    assert ("operator", "grant", "lead", "done") in [
        (e["actor"], e["action"], e["target"], e["outcome"]) for e in audit]

    made = plan.live.cli("spawn", "helper", "--agent", agent, "--no-dashboard",
                         env=plan.as_session("lead"))
    assert "started helper" in made.stdout
    plan.live.wait_status("helper", "idle")

    plan.live.cli("stop", "b", env=as_b)  # itself: allowed
    plan.live.wait_status("b", "stopped")
    audit = json.loads(plan.live.cli("audit", "--json").stdout)
    done = [(e["actor"], e["action"], e["target"]) for e in audit if e["outcome"] == "done"]
    assert ("lead", "spawn", "helper") in done and ("b", "stop", "b") in done


def test_removing_a_worktree_with_an_ignored_env_file_is_refused(plan: Plan) -> None:
    commit_file(plan.repo, ".gitignore", ".env\n", "ignore .env")
    plan.write({"a": {}}, {})
    plan.up()
    env_file = plan.worktree("a") / ".env"
    env_file.write_text("API_KEY=sk-live-1\n")
    result = plan.live.cli("stop", "a", "--remove-worktree", check=False)
    assert result.returncode == 2, result
    assert "holds ignored files that are not build output (.env)" in result.stderr
    assert env_file.read_text() == "API_KEY=sk-live-1\n"
    assert plan.live.sessions()["a"]["status"] != "stopped"  # refused before stopping

    down = plan.live.cli("down", "--remove-worktrees")
    assert "kept a's worktree" in down.stdout and env_file.exists()
