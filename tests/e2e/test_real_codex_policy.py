"""The room's command policy on the real Codex CLI (both lanes), against the scripted
Responses server: a launch writes the room's patterns as execpolicy rules beside the
worktrees and makes that directory Codex's project root, and Codex's own policy then
refuses `git push --force origin main` (bullpen's floor) and a chain holding a `deny:`
pattern before either runs (origin's `main` does not move although the local `main` is
ahead; the chain's first step leaves no marker), telling the model why. Codex keeps its
refusals to itself, so they are not in `bullpen audit` (docs/agents.md says so).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.agents.fake_model import Reply, Text, ToolCall, all_text
from tests.agents.fake_responses import FakeResponses, outputs_since_user
from tests.codex_install import codex_env, codex_home, install_codex
from tests.conftest import commit_file, git
from tests.rooms import LiveRoom, live_room
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

TURN = 120.0
PUSH = "git push --force origin main"
PUBLISH = "touch published.flag && npm publish --tag next"
REJECTED = "bullpen room policy"


def respond(request: dict) -> Reply:
    """coder, asked to ship: a force push, then a chain ending in a publish."""
    if "SHIP-IT" not in all_text(request):
        return Text("noted")
    step = outputs_since_user(request)
    if step == 0:
        return ToolCall("exec_command", {"cmd": PUSH})
    if step == 1:
        return ToolCall("exec_command", {"cmd": PUBLISH})
    return Text("shipping refused")


@pytest.fixture
def codex_room(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
               codex_release: str) -> Iterator[tuple[LiveRoom, FakeResponses]]:
    bin_dir = install_codex(codex_release)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with FakeResponses(respond) as model:
        for key, value in codex_env(model.port).items():
            monkeypatch.setenv(key, value)
        codex_home(Path(os.environ["HOME"]), model.base_url, trusted=[git_repo])
        with live_room(git_repo, tmp_path / "logs") as live:
            yield live, model


def outputs(request: dict) -> list[str]:
    return [str(item.get("output")) for item in request.get("input", [])
            if item.get("type") == "function_call_output"]


def test_real_codex_refuses_a_force_push_by_the_rooms_rules(
        codex_room: tuple[LiveRoom, FakeResponses], tmp_path: Path) -> None:
    live, model = codex_room
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(live.repo, "remote", "add", "origin", str(remote))
    git(live.repo, "push", "-q", "origin", "main")
    pushed = git(remote, "rev-parse", "main").strip()
    ahead = commit_file(live.repo, "NEW.md", "new\n", "ahead of origin")
    plan = {"agent": "codex", "layout": "windows", "deny": ["npm publish*"],
            "sessions": {"coder": {}}}
    (live.repo / "bullpen.yaml").write_text(yaml.safe_dump(plan, sort_keys=False))
    live.cli("up", "--detach", "--no-dashboard")
    live.wait_status("coder", "idle", timeout=TURN)
    rules = (live.home / "worktrees" / ".codex" / "rules" / "bullpen.rules").read_text()
    assert '"npm", "publish"' in rules and '"git", "push"' in rules

    live.cli("note", "send", "coder", "SHIP-IT: push main, then publish")
    done = wait_until(lambda: [e for e in model.exchanges()
                               if "shipping refused" in str(e.reply)], TURN,
                      message=lambda: f"coder's turn: {live.pane_text('coder')}")
    told = outputs(done[0].request)
    assert len(told) == 2 and all(REJECTED in text for text in told), told
    assert git(remote, "rev-parse", "main").strip() == pushed != ahead
    worktree = Path(live.sessions()["coder"]["worktree"])
    assert not (worktree / "published.flag").exists()
    assert git(worktree, "status", "--porcelain", "--ignored") == ""  # nothing of ours
    entries = json.loads(live.cli("audit", "--json").stdout)
    assert not [e for e in entries if e["action"] == "run command"]  # Codex's own, unseen
