"""`bullpen hooks claude`: worktree-local Claude Code settings, merged, never clobbered."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_runner import BULLPEN, run_cli
from workers.agents.claude.settings import write_settings

HOOK = f"{BULLPEN} hook claude"


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def test_fresh_worktree_gets_hooks_and_mcp_entry(tmp_path: Path) -> None:
    files = write_settings(tmp_path, executable=BULLPEN)
    settings = load(files.settings)
    assert files.settings == tmp_path / ".claude" / "settings.local.json"
    assert settings["hooks"]["PostToolUse"] == [
        {"matcher": "Read|Grep|Edit|Write", "hooks": [{"type": "command", "command": HOOK}]}]
    for event in ("UserPromptSubmit", "Stop"):
        assert settings["hooks"][event] == [{"hooks": [{"type": "command", "command": HOOK}]}]
    assert settings["enabledMcpjsonServers"] == ["bullpen"]
    server = load(tmp_path / ".mcp.json")["mcpServers"]["bullpen"]
    assert server["command"] == BULLPEN and server["args"] == ["mcp"]
    assert server["env"] == {"BULLPEN_HOME": "${BULLPEN_HOME:-}",
                             "BULLPEN_SESSION": "${BULLPEN_SESSION:-}",
                             "BULLPEN_TOKEN": "${BULLPEN_TOKEN:-}"}


def test_existing_keys_survive_and_a_rerun_adds_no_copies(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    theirs = {"permissions": {"allow": ["Bash(ls)"]},
              "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
                        "PreToolUse": [{"matcher": "Bash", "hooks": []}]},
              "enabledMcpjsonServers": ["github"]}
    (tmp_path / ".claude" / "settings.local.json").write_text(json.dumps(theirs))
    (tmp_path / ".mcp.json").write_text(json.dumps(
        {"mcpServers": {"github": {"command": "gh-mcp"}}, "other": 1}))
    write_settings(tmp_path, executable=BULLPEN)
    write_settings(tmp_path, executable=BULLPEN)
    settings = load(tmp_path / ".claude" / "settings.local.json")
    assert settings["permissions"] == {"allow": ["Bash(ls)"]}
    assert settings["hooks"]["PreToolUse"] == [{"matcher": "Bash", "hooks": []}]
    assert [entry["hooks"][0]["command"] for entry in settings["hooks"]["Stop"]] == [
        "say done", HOOK]
    assert len(settings["hooks"]["PostToolUse"]) == 1
    assert settings["enabledMcpjsonServers"] == ["github", "bullpen"]
    mcp = load(tmp_path / ".mcp.json")
    assert sorted(mcp["mcpServers"]) == ["bullpen", "github"] and mcp["other"] == 1


def test_broken_json_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text("{not json")
    result = run_cli("hooks", "claude", "--worktree", str(tmp_path), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"bullpen: {tmp_path / '.mcp.json'} is not valid JSON (line 1); fix it first,"
        " nothing was written"]
    assert (tmp_path / ".mcp.json").read_text() == "{not json"
    assert not (tmp_path / ".claude").exists()


def test_command_writes_into_the_current_directory(tmp_path: Path) -> None:
    result = run_cli("hooks", "claude", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert load(tmp_path / ".mcp.json")["mcpServers"]["bullpen"]["command"] == BULLPEN


def test_a_session_posts_its_tool_calls_to_the_room_hook_port(tmp_path: Path) -> None:
    """Launch settings: the hook after each tool call is an HTTP hook to the room's hook
    port (its hook key, never the token, comes from the pane's environment, never the
    file); the turn's hooks
    stay commands; SessionStart (no HTTP hooks in Claude 2.1) too."""
    from workers.agents import agent_files
    from workers.agents.claude.settings import launch_files

    home = tmp_path / ".bullpen"
    home.mkdir()
    files = launch_files(home, "coder", executable=BULLPEN)
    port = agent_files.hook_port(home)
    assert port is not None
    hooks = load(files.settings)["hooks"]
    assert hooks["PostToolUse"][0]["hooks"] == [{
        "type": "http", "url": f"http://127.0.0.1:{port}/hook/claude",
        "headers": {"X-Bullpen-Session": "$BULLPEN_SESSION",
                    "X-Bullpen-Hook-Key": "$BULLPEN_HOOK_KEY"},
        "allowedEnvVars": ["BULLPEN_SESSION", "BULLPEN_HOOK_KEY"], "timeout": 5}]
    assert "BULLPEN_TOKEN" not in files.settings.read_text()
    for event in ("UserPromptSubmit", "Stop", "PermissionRequest", "SessionStart"):
        assert hooks[event] == [{"hooks": [{"type": "command", "command": HOOK}]}]
    assert launch_files(home, "reviewer", executable=BULLPEN).settings.read_text().count(
        f"127.0.0.1:{port}/") == 1  # one port for the room
    plain = load(launch_files(home, "coder", executable=BULLPEN, http_hooks=False).settings)
    assert plain["hooks"]["PostToolUse"][0]["hooks"] == [{"type": "command", "command": HOOK}]
