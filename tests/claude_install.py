"""The Claude Code the tests run: `@anthropic-ai/claude-code` from npm, pinned, installed
once into the shared test cache (`tests.installs.cache_dir`) and reused by later
runs. The package ships the native binary, so nothing else is downloaded. A test that
needs it is skipped, with the reason, only when npm is missing or the install fails.

`claude_home` writes what a first start would otherwise ask for (onboarding done, the
API key approved, the repository trusted), so the real CLI starts straight at its prompt
against a scripted model server and never reaches the network.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.installs import Lane, install_npm_cli, lane_version, newest_npm_version, pinned_version

PACKAGE = "@anthropic-ai/claude-code"
CLAUDE_VERSION = pinned_version("claude")  # newest lane: npm, at test time
API_KEY = "sk-ant-bullpen-test-0123456789abcdef"


def claude_version(lane: Lane) -> str:
    """The Claude Code version `lane` runs."""
    return lane_version(lane, "claude", newest_npm_version(PACKAGE), "Claude Code")


def install_claude(version: str = CLAUDE_VERSION) -> Path:
    """The directory holding the `claude` executable; skips if it cannot be had."""
    return install_npm_cli(PACKAGE, version, "claude", "Claude Code")


def claude_env(base_url: str) -> dict[str, str]:
    """The environment that points Claude at the scripted server and keeps it offline."""
    return {"ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": API_KEY,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1"}


def claude_home(home: Path, trusted: list[Path], version: str = CLAUDE_VERSION) -> None:
    """`~/.claude.json` as after onboarding, with the test key approved and `trusted`
    directories (and so every worktree under them) accepted."""
    state = {
        "hasCompletedOnboarding": True,
        "lastOnboardingVersion": version,
        "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []},
        "projects": {str(path): {"hasTrustDialogAccepted": True} for path in trusted},
    }
    (home / ".claude.json").write_text(json.dumps(state))
