"""The room's command policy on the real Claude Code (both lanes), against the scripted
Anthropic server: the PreToolUse hook bullpen installs refuses `git push --force origin
main` (bullpen's floor) — while another process holds the store's write lock, as a busy
room may — and a `bash -c` wrapping a `deny:` pattern of the room, before either runs,
with a reason the model receives; both refusals are in `bullpen audit` (the push's once
the lock is gone).

Bash is allowed outright for this session (`--allowedTools Bash`), so nothing but the
hook stands between the model and the command: a bare remote whose `main` the local
`main` is ahead of shows that the push never happened, and the marker the second
command would have left is absent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.agents.fake_model import FakeAnthropic, Reply, Text, ToolCall, session_of
from tests.conftest import commit_file, git
from tests.e2e.conftest import real_claude_room
from tests.rooms import LiveRoom
from tests.store_lock import LockHolder
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

TURN = 120.0  # seconds; a turn takes a few seconds here
PUSH = "git -C . push --force origin main"  # git's global options: read through
PUBLISH = "bash -c 'touch published.flag && npm publish --tag next'"
# bullpen's words in the refused tool's result: the floor's rule, or the room's pattern
REASON = ("bullpen's floor refuses", "bullpen room policy")


def results(request: dict) -> list[str]:
    """The text of every tool result in `request`, oldest first."""
    return [json.dumps(part.get("content")) for message in request.get("messages", [])
            if message.get("role") == "user" and isinstance(message.get("content"), list)
            for part in message["content"] if part.get("type") == "tool_result"]


class Coder:
    """coder, asked to ship: a force push (asked for while another process holds the
    store's write lock), then a wrapped publish (the lock let go), then it stops."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.lock: LockHolder | None = None

    def __call__(self, request: dict) -> Reply:
        if session_of(request) != "coder" or "SHIP-IT" not in json.dumps(request["messages"]):
            return Text("noted")
        step = len(results(request))
        if step == 0:
            self.lock = self.lock or LockHolder(self.db)
            return ToolCall("Bash", {"command": PUSH, "description": "push"})
        self.release()
        if step == 1:
            return ToolCall("Bash", {"command": PUBLISH, "description": "publish"})
        return Text("shipping refused")

    def release(self) -> None:
        if self.lock is not None:
            self.lock.release()
            self.lock = None


@pytest.fixture
def claude_room(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                claude_release: str) -> Iterator[tuple[LiveRoom, FakeAnthropic]]:
    coder = Coder(git_repo / ".bullpen" / "bullpen.db")
    try:
        with real_claude_room(git_repo, tmp_path / "logs", monkeypatch, claude_release,
                              coder) as room:
            yield room
    finally:
        coder.release()


def test_real_claude_is_denied_a_force_push_before_it_runs(
        claude_room: tuple[LiveRoom, FakeAnthropic], tmp_path: Path) -> None:
    live, model = claude_room
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(live.repo, "remote", "add", "origin", str(remote))
    git(live.repo, "push", "-q", "origin", "main")
    pushed = git(remote, "rev-parse", "main").strip()
    ahead = commit_file(live.repo, "NEW.md", "new\n", "ahead of origin")  # a push would move it
    config = {"agent": "claude --allowedTools Bash", "layout": "windows",
              "deny": ["npm publish*"], "sessions": {"coder": {}}}
    (live.repo / "bullpen.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    live.cli("up", "--detach", "--no-dashboard")
    live.wait_status("coder", "idle", timeout=TURN)

    live.cli("note", "send", "coder", "SHIP-IT: push main to origin, then publish")
    done = wait_until(lambda: [e for e in model.exchanges()
                               if "shipping refused" in str(e.reply)], TURN,
                      message=lambda: f"coder's turn: {live.pane_text('coder')}")
    # The model was told why, for each command, in the tool's result.
    told = results(done[0].request)
    assert len(told) == 2 and all(any(words in text for words in REASON) for text in told), \
        told
    assert "forced push" in told[0] and "npm publish*" in told[1]
    # Neither command ran: origin's main did not move although local main is ahead,
    # and the wrapped command's first step left no marker.
    assert git(remote, "rev-parse", "main").strip() == pushed != ahead
    worktree = Path(live.sessions()["coder"]["worktree"])
    assert not (worktree / "published.flag").exists()

    def audited() -> list[dict] | None:
        found = json.loads(live.cli("audit", "--json").stdout)
        return found if sum(e["action"] == "run command" for e in found) == 2 else None
    entries = wait_until(audited, 30, message="both refusals to be audited")
    denied = [(e["actor"], e["target"], e["outcome"]) for e in entries
              if e["action"] == "run command"]
    assert denied == [("coder", PUSH, "refused"), ("coder", PUBLISH, "refused")], entries
    details = [e["detail"] for e in entries if e["action"] == "run command"]
    assert "'floor: a forced push'" in details[0] and "'npm publish*'" in details[1]
    table = live.cli("audit").stdout
    assert PUSH in table and "run command" in table
