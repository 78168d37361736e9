"""The code flows too, through `bullpen up` with scripted agents in a real repository: the
conflict radar tells both sides once (and once when it clears), the baton puts research's
commit in the coder's worktree at its handoff, and landing moves the base only when the
check passes, in plan order, for those allowed to."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import git
from tests.e2e.conftest import Plan
from tests.e2e.test_plan_run import READY, wait_plan_done
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

EDIT = "def handler():\n    return '{who}'\n"


def write_file(text: str, path: str = "src/app.py") -> list[str]:
    return [sys.executable, "-c", f"open({path!r}, 'w').write({text!r})"]


def conflict_lines(plan: Plan, name: str) -> list[str]:
    return [t["line"] for t in plan.typed(name) if t["kind"] == "conflict"]


def test_both_sides_are_told_of_a_conflict_once_and_once_when_it_clears(plan: Plan) -> None:
    scripts: dict[str, list[dict[str, Any]]] = {
        "alice": [{"on": "commit yours", "run": ["sh", "-c", "printf %s \"def handler():\n"
                                                 "    return 'alice'\n\" > src/app.py && git"
                                                 " commit -qam alice"]}],
        "bob": [{"on": "edit yours", "run": write_file(EDIT.format(who="bob"))},
                {"on": "back off", "run": ["git", "checkout", "--", "src/app.py"]}]}
    plan.write({"alice": {}, "bob": {}}, scripts)
    plan.up()
    base = git(plan.repo, "rev-parse", "main")
    plan.live.cli("note", "send", "alice", "commit yours")
    plan.live.cli("note", "send", "bob", "edit yours")

    for me, other in (("alice", "bob"), ("bob", "alice")):
        line = plan.live.wait_for_line(me, "Conflict ahead with", timeout=20)
        assert f"Conflict ahead with {other}" in line and "src/app.py (line 2 yours" in line
        assert f"diff {other} -- src/app.py" in line
    assert git(plan.repo, "rev-parse", "main") == base  # nobody merged anything
    conflicts = json.loads(plan.live.cli("conflicts", "--json").stdout)
    assert [(c["a"], c["b"], c["files"][0]["a_lines"]) for c in conflicts] == [
        ("alice", "bob", [[2, 2]])]

    plan.live.cli("note", "send", "bob", "back off")
    for me in ("alice", "bob"):
        plan.live.wait_for_line(me, "Conflict cleared", timeout=20)
    assert json.loads(plan.live.cli("conflicts", "--json").stdout) == []
    for me in ("alice", "bob"):
        lines = conflict_lines(plan, me)
        assert len(lines) == 2, lines  # found once, cleared once
        assert "Conflict ahead" in lines[0] and "Conflict cleared" in lines[1]


def three_stage(plan: Plan, coder_dirty: bool) -> dict[str, list[dict[str, Any]]]:
    heads = plan.live.logs / "coder.head"
    coder: list[dict[str, Any]] = []
    if coder_dirty:  # work of its own, not committed, before its turn comes
        coder.append({"on": "<start>", "run": write_file("mine\n", "wip.txt")})
        coder.append({"on": "<start>", "run": ["sh", "-c", "git rev-parse HEAD >"
                                               f" {plan.live.logs / 'coder.start'}"]})
    coder += [
        {"on": READY, "run": ["sh", "-c", f"git rev-parse HEAD > {heads}"]},
        {"on": READY, "run": ["bullpen", "task", "claim", "{task}"]},
        {"on": READY, "run": ["sh", "-c", "echo 'def handler(): return \"json\"' > src/app.py"
                              " && git commit -qm endpoint src/app.py"]},
        {"on": READY, "run": ["bullpen", "task", "done", "{task}", "--summary", "done"]}]
    return {
        "research": [
            {"on": READY, "run": ["bullpen", "task", "claim", "{task}"]},
            {"on": READY, "run": ["sh", "-c", "mkdir -p data && echo '83% JSON' >"
                                  " data/usage.md && git add data && git commit -qm data"]},
            {"on": READY, "run": ["bullpen", "task", "done", "{task}", "--summary", "see data"]}],
        "coder": coder,
        "reviewer": [{"on": READY, "run": ["bullpen", "task", "claim", "{task}"]},
                     {"on": READY, "run": ["bullpen", "task", "done", "{task}"]}]}


PLAN = {"research": {"task": "Gather the usage data"},
        "coder": {"after": ["research"], "task": "Implement the endpoint"},
        "reviewer": {"after": ["coder"], "task": "Review"}}


def set_land(repo: Path, check: str) -> None:
    config = yaml.safe_load((repo / "bullpen.yaml").read_text())
    config["land"] = {"strategy": "merge", "check": check}
    (repo / "bullpen.yaml").write_text(yaml.safe_dump(config, sort_keys=False))


def test_the_baton_carries_research_then_landing_follows_the_plan(plan: Plan) -> None:
    plan.write(PLAN, three_stage(plan, coder_dirty=False))
    plan.up()
    wait_plan_done(plan)
    research_head = git(plan.repo, "rev-parse", "bullpen/research").strip()
    # At its handoff, before it did anything, the coder's worktree held research's commit.
    assert (plan.live.logs / "coder.head").read_text().strip() == research_head
    handoff = plan.live.wait_for_line("coder", "is ready")
    assert f"holds commit {research_head[:7]} of research: you start from it" in handoff

    repo = plan.repo
    set_land(repo, "echo checking; test -f data/usage.md && false")
    base = git(repo, "rev-parse", "main")
    index = git(repo, "ls-files", "--stage")
    coder_state = git(plan.worktree("coder"), "status", "--porcelain")

    failed = plan.live.cli("land", "--all", check=False)
    assert failed.returncode == 1 and "stopped at research" in failed.stderr
    assert "check failed" in failed.stderr
    assert git(repo, "rev-parse", "main") == base and git(repo, "ls-files", "--stage") == index
    assert git(plan.worktree("coder"), "status", "--porcelain") == coder_state

    refused = plan.live.cli("land", "coder", env=plan.as_session("reviewer"), check=False)
    assert refused.returncode == 2 and "may not land coder" in refused.stderr

    set_land(repo, "test -f data/usage.md")
    landed = plan.live.cli("land", "--all").stdout.splitlines()
    assert [line.split()[1] for line in landed] == ["research", "coder"]  # reviewer: no commits
    assert (repo / "data/usage.md").exists() and "json" in (repo / "src/app.py").read_text()
    rows = json.loads(plan.live.cli("ls", "--json").stdout)
    assert {r["name"]: r["landed"] is not None for r in rows} == {
        "research": True, "coder": True, "reviewer": False}

    trail = json.loads(plan.live.cli("audit", "--json").stdout)
    outcomes = [(e["actor"], e["target"], e["outcome"]) for e in trail if e["action"] == "land"]
    assert ("reviewer", "coder", "refused") in outcomes
    assert ("operator", "research", "failed") in outcomes
    # Each landing is audited when it starts (before its check), then with its outcome.
    assert outcomes[-4:] == [("operator", "research", "started"), ("operator", "research", "done"),
                             ("operator", "coder", "started"), ("operator", "coder", "done")]


def test_a_dependent_with_uncommitted_work_keeps_it_and_is_told(plan: Plan) -> None:
    plan.write(PLAN, three_stage(plan, coder_dirty=True))
    plan.up()
    coder = plan.worktree("coder")

    handoff = plan.live.wait_for_line("coder", "is ready", timeout=20)

    assert "Not merged" in handoff and "uncommitted changes (wip.txt)" in handoff
    head_at_handoff = wait_until(lambda: (plan.live.logs / "coder.head").exists()
                                 and (plan.live.logs / "coder.head").read_text(), 15,
                                 message="coder's HEAD at its handoff")
    assert head_at_handoff == (plan.live.logs / "coder.start").read_text()
    assert (coder / "wip.txt").read_text() == "mine\n"
