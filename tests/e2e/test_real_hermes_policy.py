"""The room's command policy on the real Hermes Agent (both lanes), against the scripted
chat-completions server: a launch writes bullpen's floor and the room's `deny:` into the
session profile's `approvals.deny`, beneath bullpen's own `pre_tool_call` hook, which
reads the command as bash does. The hook refuses `git -C . push --force origin main`
(which Hermes' fnmatch over the list lets through) — while another process holds the
store's write lock, as a busy room may — and a chain ending in a `deny:` pattern before
either runs (origin's `main` does not move although the local `main` is ahead, the
chain's first step leaves no marker), the model is told why, and both refusals are in
`bullpen audit` with the rule that refused them (the push's once the lock is gone).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.agents.fake_model import FakeModel, Reply, Text, ToolCall, all_text, session_of
from tests.agents.fake_model import tool_results_since_user as step_of
from tests.conftest import commit_file, git
from tests.hermes_install import install_beside_hermes
from tests.rooms import LiveRoom, live_room
from tests.store_lock import LockHolder
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

TURN = 180.0  # seconds; a Hermes turn takes ~5 s here
PUSH = "git -C . push --force origin main"  # global options: past Hermes' own globs
PUBLISH = "touch published.flag && npm publish --tag next"
# bullpen's words in the refused tool's result (its pre_tool_call hook answers first)
BLOCKED = ("bullpen's floor refuses", "bullpen room policy")


class Shipper:
    """shipper, asked to ship: a force push (asked for while another process holds the
    store's write lock), then a chain ending in a publish (the lock let go)."""

    def __init__(self) -> None:
        self.db: Path | None = None  # the room's store, once it is up
        self.lock: LockHolder | None = None

    def __call__(self, request: dict) -> Reply:
        if session_of(request) != "shipper" or "SHIP-IT" not in all_text(request):
            return Text("noted")
        step = step_of(request)
        if step == 0:
            assert self.db is not None
            self.lock = self.lock or LockHolder(self.db)
            return ToolCall("terminal", {"command": PUSH})
        self.release()
        if step == 1:
            return ToolCall("terminal", {"command": PUBLISH})
        return Text("shipping refused")

    def release(self) -> None:
        if self.lock is not None:
            self.lock.release()
            self.lock = None


@pytest.fixture
def shipper() -> Iterator[Shipper]:
    model = Shipper()
    yield model
    model.release()


@pytest.fixture
def hermes_room(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                hermes_release: str, shipper: Shipper,
                ) -> Iterator[tuple[LiveRoom, FakeModel, Path, Path]]:
    bin_dir = install_beside_hermes(hermes_release)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    root = tmp_path / "hermes-home"
    root.mkdir(mode=0o700)
    monkeypatch.setenv("HERMES_HOME", str(root))
    (root / ".update_check").write_text(json.dumps({"ts": 4102444800,
                                                    "latest": hermes_release}))
    shipper.db = git_repo / ".bullpen" / "bullpen.db"
    with FakeModel(shipper) as model:
        config = {"model": {"provider": "custom", "base_url": model.base_url,
                            "default": "stub-model", "context_length": 131072},
                  "security": {"tirith_enabled": False}}
        (root / "config.yaml").write_text(yaml.safe_dump(config))
        with live_room(git_repo, tmp_path / "logs") as live:
            yield live, model, bin_dir, root


def bullpen(bin_dir: Path, live: LiveRoom, *args: str) -> str:
    """`bullpen ARGS` from the venv it shares with Hermes."""
    done = subprocess.run([str(bin_dir / "bullpen"), *args], cwd=live.repo,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"bullpen {' '.join(args)}: {done.stderr}"
    return done.stdout


def tool_results(request: dict) -> list[str]:
    return [str(message.get("content")) for message in request.get("messages", [])
            if message.get("role") == "tool"]


def test_real_hermes_gets_the_room_policy_and_refuses_a_force_push(
        hermes_room: tuple[LiveRoom, FakeModel, Path, Path], tmp_path: Path) -> None:
    live, model, bin_dir, root = hermes_room
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(live.repo, "remote", "add", "origin", str(remote))
    git(live.repo, "push", "-q", "origin", "main")
    pushed = git(remote, "rev-parse", "main").strip()
    ahead = commit_file(live.repo, "NEW.md", "new\n", "ahead of origin")
    plan = {"agent": "hermes", "layout": "windows", "deny": ["npm publish*"],
            "sessions": {"shipper": {}}}
    (live.repo / "bullpen.yaml").write_text(yaml.safe_dump(plan, sort_keys=False))
    bullpen(bin_dir, live, "up", "--detach", "--no-dashboard")
    live.wait_status("shipper", "idle", timeout=TURN)

    # The session's profile holds the floor and the room's pattern, each also in the
    # form that catches a later command of a chain.
    with live.db() as conn:
        profile = conn.execute("SELECT profile FROM sessions WHERE name = 'shipper'"
                               ).fetchone()[0]
    written = yaml.safe_load((root / "profiles" / profile / "config.yaml").read_text())
    deny = written["approvals"]["deny"]
    assert {"git push *--force*", "*\ngit push *--force*", "npm publish*",
            "*\nnpm publish*"} <= set(deny), deny
    hooks = written["hooks"]["pre_tool_call"]
    assert [(h["matcher"], h["command"].endswith(" hook hermes")) for h in hooks] == [
        ("terminal", True)], hooks

    bullpen(bin_dir, live, "note", "send", "shipper", "SHIP-IT: push main, then publish")
    done = wait_until(lambda: [e for e in model.exchanges()
                               if "shipping refused" in str(e.reply)], TURN,
                      message=lambda: f"shipper's turn: {live.pane_text('shipper')}")
    told = tool_results(done[0].request)
    assert len(told) == 2 and all(any(words in text for words in BLOCKED) for text in told), \
        told
    assert "forced push" in told[0] and "'npm publish*'" in told[1]
    assert git(remote, "rev-parse", "main").strip() == pushed != ahead
    worktree = Path(live.sessions()["shipper"]["worktree"])
    assert not (worktree / "published.flag").exists()

    def refusals() -> list[dict]:
        entries = json.loads(bullpen(bin_dir, live, "audit", "--json"))
        return [e for e in entries if e["action"] == "run command"]
    found = wait_until(lambda: len(refusals()) == 2 and refusals(), 30,
                       message=lambda: f"the refusals audited: {refusals()}")
    assert [(e["actor"], e["target"], e["outcome"]) for e in found] == [
        ("shipper", PUSH, "refused"), ("shipper", PUBLISH, "refused")]
    assert found[0]["detail"] == "denied by pattern 'floor: a forced push' (hermes's hook)"
    assert found[1]["detail"] == "denied by pattern 'npm publish*' (hermes's hook)"
