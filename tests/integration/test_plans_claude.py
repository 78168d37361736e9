"""A team plan with a Claude Code session: its settings travel without bullpen's hooks or
any secret, and on the partner's machine `bullpen up` launches Claude with them merged
under bullpen's own, its agents and skills as a plugin and its CLAUDE.md appended. The
`claude` here is a stand-in that records how it was started (the real Claude's use of
these flags is Claude's own; tests/e2e cover bullpen's hooks with the real one)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from tests.conftest import git
from tests.integration.test_plans import cli, every_file
from tests.rooms import live_room
from tests.waiting import wait_until

API_KEY = "sk-ant-api03-SETTINGS-ENV-0042aa"
OAUTH = "sk-ant-oat01-CREDENTIALS-77bb"
TRANSCRIPT = "CLAUDE-TRANSCRIPT-private-5150"
RULES = "TEAM-RULES-42: small commits, tests first.\n"


def stand_in(bin_dir: Path, record: Path) -> None:
    """A `claude` that says its version and records its arguments and settings file."""
    bin_dir.mkdir(parents=True)
    script = bin_dir / "claude"
    script.write_text(f"""#!/usr/bin/env python3
import json, sys, time
if sys.argv[1:] == ["--version"]:
    print("2.1.332 (Claude Code)"); sys.exit(0)
args = sys.argv[1:]
settings = json.load(open(args[args.index("--settings") + 1]))
json.dump({{"args": args, "settings": settings}}, open({str(record)!r}, "w"))
time.sleep(3600)
""")
    script.chmod(0o755)


def test_a_claude_session_plan_travels_and_launches(git_repo: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    claude_dir = Path(os.environ["HOME"]) / ".claude"
    (claude_dir / "agents").mkdir(parents=True)
    (claude_dir / "settings.json").write_text(json.dumps({
        "env": {"ANTHROPIC_API_KEY": API_KEY, "DEBUG_LEVEL": "2"},
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/x/bullpen hook claude"}]},
                           {"hooks": [{"type": "command", "command": "say done"}]}]},
        "permissions": {"allow": ["mcp__bullpen", "Bash(npm test)"]}, "model": "opus"}))
    (claude_dir / "CLAUDE.md").write_text(RULES)
    (claude_dir / "agents" / "reviewer.md").write_text("---\nname: reviewer\n---\nReview.\n")
    (claude_dir / "skills" / "deploy").mkdir(parents=True)
    (claude_dir / "skills" / "deploy" / "SKILL.md").write_text("---\nname: deploy\n---\n")
    (claude_dir / ".credentials.json").write_text(json.dumps(
        {"claudeAiOauth": {"accessToken": OAUTH}}))
    (claude_dir / "projects" / "x").mkdir(parents=True)
    (claude_dir / "projects" / "x" / "c.jsonl").write_text(TRANSCRIPT)
    (git_repo / "bullpen.yaml").write_text(yaml.safe_dump(
        {"agent": "claude", "sessions": {"writer": {"task": "Write the docs"}}}))
    shared = tmp_path / "plan"
    cli(git_repo, "plan", "export", str(shared))
    for path, data in every_file(shared).items():
        for secret in (API_KEY, OAUTH, TRANSCRIPT):
            assert secret.encode() not in data, f"{secret} in {path}"
    exported = json.loads((shared / "agents" / "writer" / "settings.json").read_text())
    # every env value is the partner's to provide: none is a setting a pattern can tell
    assert exported == {"model": "opus",
                        "hooks": {"Stop": [{"hooks": [{"type": "command",
                                                       "command": "say done"}]}]},
                        "permissions": {"allow": ["Bash(npm test)"]}}

    partner = tmp_path / "partner"
    partner.mkdir()
    monkeypatch.setenv("HOME", str(partner))
    record = tmp_path / "launched.json"
    stand_in(tmp_path / "bin", record)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(git_repo), str(clone))
    out = cli(clone, "plan", "install", str(shared), "--yes")
    assert "ANTHROPIC_API_KEY  in your environment" in out and "[MISSING]" in out
    assert "DEBUG_LEVEL  in your environment" in out
    assert "writer: settings.json: hooks.Stop.0.hooks.0.command: say done" in out
    with live_room(clone, tmp_path / "logs") as live:
        live.cli("up", "--detach", "--no-dashboard")
        launched = wait_until(lambda: record.exists() and json.loads(record.read_text()),
                              30, message="the stand-in claude to start")
    args, settings = launched["args"], launched["settings"]
    plan_dir = clone / ".bullpen" / "agents" / "writer" / "plan"
    assert args[args.index("--plugin-dir") + 1] == str(plan_dir)
    assert (plan_dir / "skills" / "deploy" / "SKILL.md").exists()
    assert (plan_dir / ".claude-plugin" / "plugin.json").exists()
    assert args[args.index("--append-system-prompt") + 1] == RULES
    assert settings["model"] == "opus" and "DEBUG_LEVEL" not in settings.get("env", {})
    stop = [hook["command"] for entry in settings["hooks"]["Stop"] for hook in entry["hooks"]]
    assert stop[0] == "say done" and stop[1].endswith(" hook claude")
    assert settings["permissions"]["allow"] == ["Bash(npm test)", "mcp__bullpen"]
    assert "PostToolUse" in settings["hooks"]  # bullpen's own hooks are all there
