"""End-to-end rooms: a `bullpen.yaml` of scripted agents, `up --detach`, real tmux and git.

Every agent's script starts by saving its own token, so a test can also act *as* that
session through the CLI (`Plan.as_session`), exactly as the agent itself would.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.agents.fake_model import FakeAnthropic
from tests.claude_install import claude_env, claude_home, claude_version, install_claude
from tests.cli_runner import identity
from tests.codex_install import codex_version
from tests.hermes_install import hermes_version
from tests.installs import LANES
from tests.rooms import LiveRoom, live_room
from tests.waiting import wait_until

Action = dict[str, Any]
TYPED = re.compile(r"\[(?P<kind>note|handoff|ping|alert|system|conflict) #(?P<id>\d+)"
                   r" from (?P<sender>\S+?)(?: re #(?P<reply>\d+))?\]")


@dataclass
class Plan:
    """A live room plus helpers for its scripted sessions."""

    live: LiveRoom

    @property
    def repo(self) -> Path:
        return self.live.repo

    def token_file(self, name: str) -> Path:
        return self.live.logs / f"{name}.token"

    def write(self, sessions: dict[str, dict[str, Any]],
              scripts: dict[str, list[Action]], **top: Any) -> Path:
        """Write bullpen.yaml: each session runs a scripted agent with its actions; `top`
        adds top-level sections (`loop_guard={"notes": 4}`).

        Every script first saves the session's token (see `as_session`).
        """
        config: dict[str, Any] = {"layout": "side-by-side", **top, "sessions": {}}
        for name, fields in sessions.items():
            script = self.live.logs / f"{name}.script"
            save_token = {"on": "<start>", "run": [
                "sh", "-c", f'printf %s "$BULLPEN_TOKEN" > {self.token_file(name)}']}
            rows = [save_token, *scripts.get(name, [])]
            script.write_text("".join(json.dumps(row) + "\n" for row in rows))
            # A scripted agent is a generic program: bullpen types into it only opted in.
            config["sessions"][name] = {"agent": self.live.agent(name, "--script", str(script)),
                                        "deliver": "type", **fields}
        path = self.repo / "bullpen.yaml"
        path.write_text(yaml.safe_dump(config, sort_keys=False))
        return path

    def up(self) -> None:
        """`bullpen up --detach --no-dashboard` (tokens are saved again by new agents)."""
        self.live.cli("up", "--detach", "--no-dashboard")

    def as_session(self, name: str, timeout: float = 15.0) -> dict[str, str]:
        """The environment that makes CLI calls act as `name` (its current agent's token)."""
        token = wait_until(lambda: self.token_file(name).exists()
                           and self.token_file(name).read_text(), timeout,
                           message=f"{name}'s agent to save its token")
        return identity(self.live.home, name, token)

    def cli_as(self, name: str, *args: str) -> Any:
        """Run `bullpen ARGS --json` as `name` and return the parsed JSON."""
        result = self.live.cli(*args, "--json", env=self.as_session(name))
        return json.loads(result.stdout)

    def typed(self, name: str) -> list[dict[str, Any]]:
        """Every note typed into `name`'s pane, in order: kind, id, sender, reply, line."""
        found = []
        for line in self.live.lines_of(name):
            for match in TYPED.finditer(line):
                found.append({"kind": match["kind"], "id": int(match["id"]),
                              "sender": match["sender"],
                              "reply": int(match["reply"]) if match["reply"] else None,
                              "line": line})
        return found

    def log_times(self, name: str) -> list[tuple[float, str]]:
        """(unix time, line) for each line `name`'s agent received."""
        return [(row["t"], row["line"]) for row in self.live.log_rows(name)]

    def worktree(self, name: str) -> Path:
        return Path(self.live.sessions()[name]["worktree"])


@pytest.fixture
def plan(git_repo: Path, tmp_path: Path) -> Iterator[Plan]:
    """A room for `git_repo` with scripted sessions; brought down at the end."""
    with live_room(git_repo, tmp_path / "logs") as live:
        yield Plan(live)



@pytest.fixture(params=LANES, ids=lambda lane: f"claude-{lane}")
def claude_release(request: pytest.FixtureRequest) -> str:
    """The Claude Code version a real-Claude test runs: pinned, then npm's newest."""
    return claude_version(request.param)


@pytest.fixture(params=LANES, ids=lambda lane: f"codex-{lane}")
def codex_release(request: pytest.FixtureRequest) -> str:
    """The Codex CLI version a real-Codex test runs: pinned, then npm's newest."""
    return codex_version(request.param)


@pytest.fixture(params=LANES, ids=lambda lane: f"hermes-{lane}")
def hermes_release(request: pytest.FixtureRequest) -> str:
    """The hermes-agent version a real-Hermes test runs: pinned, then PyPI's newest."""
    return hermes_version(request.param)


@contextmanager
def real_claude_room(repo: Path, logs: Path, monkeypatch: pytest.MonkeyPatch, release: str,
                     respond: Callable[..., Any]) -> Iterator[tuple[LiveRoom, FakeAnthropic]]:
    """A room for `repo` whose sessions run the real `claude` `release` against a scripted
    server answering with `respond`, in a trusted repository and a HOME of its own."""
    bin_dir = install_claude(release)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with FakeAnthropic(respond) as model:
        for key, value in claude_env(model.base_url).items():
            monkeypatch.setenv(key, value)
        claude_home(Path(os.environ["HOME"]), trusted=[repo], version=release)
        with live_room(repo, logs) as live:
            yield live, model
