"""`bullpen plan export` leaves out what its key-shaped patterns cannot see: every value of
Claude's `env`, credentials under `Authorization`, `Cookie`, `auth` and `*pass*` /
`*secret*` / `*token*` keys, in an HTTP header inside a command, and after a
`--token=`-style argument. Each is named as a secret to provide; its value is in no file
of the exported tree. A file of the agent's setup that is a hard link (to an ssh key, say)
is not exported either. Real files in a temporary HOME, the real CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from tests.integration.test_plans import cli

SERVICE_PASS = "correct-horse-battery-staple"  # no shape a pattern knows
HOOK_TOKEN = "hooktokenvalueabcdefgh"
AUTH = "user:opensesame-hermes"
COOKIE = "sid=cookiejar-session-value"
MCP_TOKEN = "mcpflagtokenvalue"
MCP_SPACED = "spacedflagsecretvalue"
PRIVATE_KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA-PRIVATE\n"


def in_tree(directory: Path, value: str) -> list[str]:
    """Every file under `directory` whose bytes hold `value` (symlinks too)."""
    return [str(path) for path in directory.rglob("*")
            if path.is_file() and value.encode() in path.read_bytes()]


def exported_secrets(target: Path) -> dict[str, str]:
    manifest = yaml.safe_load((target / "plan.yaml").read_text())
    return {entry["name"]: entry["where"] for entry in manifest["secrets"]}


@pytest.fixture
def claude_room(git_repo: Path) -> Path:
    (git_repo / "bullpen.yaml").write_text(yaml.safe_dump(
        {"agent": "claude", "sessions": {"writer": {"task": "Write the docs"}}}))
    return git_repo


def test_claude_env_values_and_header_credentials_are_left_out(claude_room: Path,
                                                                tmp_path: Path) -> None:
    claude_dir = Path(os.environ["HOME"]) / ".claude"
    claude_dir.mkdir()
    (claude_dir / "settings.json").write_text(json.dumps({
        "env": {"MY_SERVICE_PASS": SERVICE_PASS, "DEBUG_LEVEL": "2"},
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command":
                  f"curl -H 'Authorization: token {HOOK_TOKEN}' https://ci.example/done"}]}]},
        "model": "opus"}))
    target = tmp_path / "plan"
    out = cli(claude_room, "plan", "export", str(target))
    for secret in (SERVICE_PASS, HOOK_TOKEN):
        assert in_tree(target, secret) == [], secret
    secrets = exported_secrets(target)
    assert {"MY_SERVICE_PASS", "DEBUG_LEVEL"} <= set(secrets), secrets
    assert "MY_SERVICE_PASS" in out and "DEBUG_LEVEL" in out
    settings = json.loads((target / "agents" / "writer" / "settings.json").read_text())
    assert "env" not in settings
    [hook] = settings["hooks"]["Stop"][0]["hooks"]
    assert "Authorization: token ${" in hook["command"]
    [reference] = [name for name in secrets if name.endswith("AUTHORIZATION")]
    assert f"${{{reference}}}" in hook["command"]


def test_hermes_auth_cookie_and_token_arguments_are_left_out(git_repo: Path,
                                                             tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    root = tmp_path / "hermes-home"
    root.mkdir()
    (root / "config.yaml").write_text(yaml.safe_dump({
        "model": {"provider": "custom", "default": "m", "auth": AUTH},
        "mcp_servers": {
            "web": {"url": "https://mcp.example/v1", "headers": {"Cookie": COOKIE}},
            "gh": {"command": "gh-mcp", "args": [f"--token={MCP_TOKEN}", "--client-secret",
                                                 MCP_SPACED, "--verbose"]},
            "raw": {"command": f"fetcher --header 'Cookie: {COOKIE}'"}},
        "max_tokens": 4096}))
    monkeypatch.setenv("HERMES_HOME", str(root))
    (git_repo / "bullpen.yaml").write_text(yaml.safe_dump(
        {"agent": "hermes", "sessions": {"coder": {"task": "Implement"}}}))
    target = tmp_path / "plan"
    cli(git_repo, "plan", "export", str(target))
    for secret in (AUTH, COOKIE, MCP_TOKEN, MCP_SPACED):
        assert in_tree(target, secret) == [], secret
    config = yaml.safe_load((target / "agents" / "coder" / "config.yaml").read_text())
    secrets = exported_secrets(target)
    assert config["model"]["auth"] == "${MODEL_AUTH}" and "MODEL_AUTH" in secrets
    cookie = config["mcp_servers"]["web"]["headers"]["Cookie"]
    assert cookie.startswith("${") and cookie[2:-1] in secrets
    args = config["mcp_servers"]["gh"]["args"]
    assert args[0].startswith("--token=${") and args[0][10:-1] in secrets
    assert args[2].startswith("${") and args[2][2:-1] in secrets and args[3] == "--verbose"
    assert "Cookie: ${" in config["mcp_servers"]["raw"]["command"]
    assert config["max_tokens"] == 4096


def test_a_hard_linked_skill_file_is_not_exported(claude_room: Path, tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text(PRIVATE_KEY)
    skill = home / ".claude" / "skills" / "deploy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: deploy\n---\n")
    os.link(home / ".ssh" / "id_rsa", skill / "notes.md")
    (skill / "key.md").symlink_to(home / ".ssh" / "id_rsa")
    (home / ".claude" / "skills" / "ssh").symlink_to(home / ".ssh")
    target = tmp_path / "plan"
    cli(claude_room, "plan", "export", str(target))
    assert in_tree(target, "PRIVATE KEY") == []
    assert (target / "agents" / "writer" / "skills" / "deploy" / "SKILL.md").is_file()


def test_a_claude_md_over_the_cap_is_refused_not_exported(claude_room: Path,
                                                          tmp_path: Path) -> None:
    claude_dir = Path(os.environ["HOME"]) / ".claude"
    claude_dir.mkdir()
    with open(claude_dir / "CLAUDE.md", "wb") as prompt:
        prompt.truncate(200 * 1024 * 1024)  # sparse
    out = cli(claude_room, "plan", "export", str(tmp_path / "plan"), code=2)
    assert "CLAUDE.md is 209 MB, over the 1 MB" in out
    assert not (tmp_path / "plan" / "plan.yaml").exists()
