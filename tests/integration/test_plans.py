"""Team plans: `bullpen plan export` ships no secret, `install` sets the plan up in a
fresh clone on a fresh HOME, `update` shows a change and applies it, keeping the
partner's own edits. Real git (a file:// URL cloned through GitPython), the real CLI;
the Hermes profiles are files here (tests/e2e/test_real_hermes_plan.py runs Hermes)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
import yaml

from tests.cli_runner import run_cli
from tests.conftest import git
from workers.agents.hermes import deny
from workers.agents.hermes.config import is_set_up
from workers.agents.hermes.profile import auto_profile_name

# The planted secrets: not one of them may reach the plan, in any file.
API_KEY = "sk-literal-API-KEY-4f2a9c77d1"
GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"
DB_PASSWORD = "db-pass-Quux-8812"
ENV_KEY = "sk-or-v1-ENVFILE-0b7e61d2aa"
OAUTH = "oauth-access-AUTHJSON-5531"
MEMORY = "MEMORY-ENTRY-the-user-is-called-Zed"
TRANSCRIPT = "SESSION-TRANSCRIPT-9911-private"
SECRETS = (API_KEY, GITHUB, DB_PASSWORD, ENV_KEY, OAUTH, MEMORY, TRANSCRIPT)
SOUL = "You are the careful one. SOUL-MARKER-17\n"
SKILL = "---\nname: review-checklist\ndescription: How we review\n---\nCheck the tests.\n"
PLAN = {"agent": "hermes", "sessions": {
    "research": {"task": "Gather the usage data"},
    "coder": {"after": ["research"], "task": "Implement the endpoint"}}}


def plant(root: Path) -> None:
    """A default Hermes profile holding every kind of secret, memory and history."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "config.yaml").write_text(yaml.safe_dump({
        "model": {"provider": "custom", "base_url": "http://127.0.0.1:9/v1",
                  "default": "stub-model", "api_key": API_KEY},
        "mcp_servers": {"github": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": GITHUB}},
                        "db": {"command": "db-mcp",
                               "args": [f"postgres://app:{DB_PASSWORD}@db.internal/app"]}},
        "display": {"busy_input_mode": "queue"}, "max_tokens": 4096,
        # bullpen's policy writes its floor and the room's deny: here; the user's own stays
        "approvals": {"mode": "smart", "deny": ["git push *--force*", "*\ngit push *--force*",
                                                  "my-own rm *"]}}))
    (root / ".env").write_text(f"OPENROUTER_API_KEY={ENV_KEY}\n")
    (root / "auth.json").write_text(json.dumps({"providers": {"nous": {
        "access_token": OAUTH}}}))
    (root / "memories").mkdir()
    (root / "memories" / "MEMORY.md").write_text(f"{MEMORY}\n")
    (root / "sessions").mkdir()
    (root / "sessions" / "session_1.json").write_text(json.dumps({"text": TRANSCRIPT}))
    (root / "logs").mkdir()
    (root / "logs" / "agent.log").write_text(f"{API_KEY} {TRANSCRIPT}\n")
    with sqlite3.connect(root / "state.db") as conn:
        conn.execute("CREATE TABLE messages (body TEXT)")
        conn.execute("INSERT INTO messages VALUES (?)", (TRANSCRIPT,))
    (root / "SOUL.md").write_text(SOUL)
    skill = root / "skills" / "review-checklist"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL)
    (root / "skills" / ".hub").mkdir()
    (root / "skills" / ".hub" / "lock.json").write_text(json.dumps({"t": OAUTH}))
    (root / "skills" / "leak").symlink_to(root / ".env")


def cli(cwd: Path, *args: str, env: dict[str, str] | None = None, code: int = 0,
        input: str | None = None) -> str:
    done = run_cli(*args, cwd=cwd, env=env, input=input)
    assert done.returncode == code, f"bullpen {' '.join(args)}: {done.stdout}{done.stderr}"
    return done.stdout + done.stderr


def every_file(directory: Path) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in directory.rglob("*")
            if path.is_file() and not path.is_symlink()}


@pytest.fixture
def exporter(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The exporting room: a plan of two Hermes sessions, coder's auto profile made."""
    root = tmp_path / "hermes-home"
    plant(root)
    monkeypatch.setenv("HERMES_HOME", str(root))
    (git_repo / "bullpen.yaml").write_text(yaml.safe_dump(PLAN, sort_keys=False))
    git(git_repo, "add", "bullpen.yaml")
    git(git_repo, "commit", "-qm", "the plan")
    cli(git_repo, "hermes", "setup", "auto", "--session", "coder", "--yes")
    return git_repo


def export_to_git(repo: Path, target: Path) -> str:
    cli(repo, "plan", "export", str(target))
    if not (target / ".git").exists():
        git(target, "init", "-q", "-b", "main")
    git(target, "add", "-A")
    git(target, "commit", "-qm", "the team plan")
    return git(target, "rev-parse", "HEAD").strip()


def test_export_ships_no_secret_and_lists_what_the_partner_provides(
        exporter: Path, tmp_path: Path) -> None:
    target = tmp_path / "plan"
    out = cli(exporter, "plan", "export", str(target))
    assert "wrote the plan" in out
    shipped = every_file(target)
    for path, data in shipped.items():
        for secret in SECRETS:
            assert secret.encode() not in data, f"{secret} in {path}"
    names = {path.relative_to(target).as_posix() for path in shipped}
    for session in ("research", "coder"):
        assert {f"agents/{session}/SOUL.md", f"agents/{session}/config.yaml",
                f"agents/{session}/skills/review-checklist/SKILL.md"} <= names
    assert not [name for name in names if any(part in name for part in (
        ".env", "auth.json", "memories", "sessions/", "state.db", "logs", ".hub", "leak",
        "plugins", "bullpen.db"))], names
    assert (target / "agents" / "coder" / "SOUL.md").read_text() == SOUL
    config = yaml.safe_load((target / "agents" / "coder" / "config.yaml").read_text())
    assert config["model"]["api_key"] == "${MODEL_API_KEY}"
    assert config["mcp_servers"]["github"]["env"]["GITHUB_TOKEN"] == "${GITHUB_TOKEN}"
    assert config["mcp_servers"]["db"]["args"] == [
        "postgres://app:${MCP_SERVERS_DB_ARGS_PASSWORD}@db.internal/app"]
    assert config["max_tokens"] == 4096 and "bullpen" not in config.get("mcp_servers", {})
    assert "hooks" not in config and "memory" not in config  # bullpen's own entries
    assert config["approvals"] == {"mode": "smart", "deny": ["my-own rm *"]}
    manifest = yaml.safe_load((target / "plan.yaml").read_text())
    assert {entry["name"] for entry in manifest["secrets"]} == {
        "MODEL_API_KEY", "GITHUB_TOKEN", "MCP_SERVERS_DB_ARGS_PASSWORD", "OPENROUTER_API_KEY"}
    assert manifest["sessions"]["coder"]["profile"] == "auto"
    assert (target / "bullpen.yaml").read_bytes() == (exporter / "bullpen.yaml").read_bytes()


def test_bad_plans_and_places_are_one_line_exit_2(exporter: Path, tmp_path: Path) -> None:
    crowded = tmp_path / "crowded"
    crowded.mkdir()
    (crowded / "notes.txt").write_text("mine\n")
    out = cli(exporter, "plan", "export", str(crowded), code=2)
    assert "holds other files" in out and len(out.strip().splitlines()) == 1
    out = cli(exporter, "plan", "install", str(crowded), code=2)
    assert "not a bullpen plan" in out and len(out.strip().splitlines()) == 1
    out = cli(exporter, "plan", "install", "file:///nowhere/at/all", code=1)
    assert "cannot fetch" in out and len(out.strip().splitlines()) == 1
    out = cli(exporter, "plan", "update", code=2)
    assert "no plan is installed" in out
    (exporter / "bullpen.yaml").write_text(
        "sessions:\n  a:\n    agent: env KEY=sk-abcdefghijklmnopqrstuv hermes\n")
    out = cli(exporter, "plan", "export", str(tmp_path / "fresh"), code=2)
    assert "bullpen.yaml:3 holds what looks like a secret" in out
    assert not (tmp_path / "fresh" / "plan.yaml").exists()


def test_install_in_a_fresh_clone_then_update(exporter: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared-plan"
    first = export_to_git(exporter, shared)

    # The partner: another HOME, another Hermes root, a fresh clone without bullpen.yaml.
    partner_home = tmp_path / "partner"
    partner_root = partner_home / ".hermes"
    partner_root.mkdir(parents=True)
    (partner_root / ".env").write_text("MODEL_API_KEY=partner-own-key\n")
    monkeypatch.setenv("HOME", str(partner_home))
    monkeypatch.setenv("HERMES_HOME", str(partner_root))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(exporter), str(clone))
    git(clone, "rm", "-q", "bullpen.yaml")
    asked = cli(clone, "plan", "install", f"file://{shared}", code=2)  # no terminal
    assert "coder: config.yaml: mcp_servers.github.command: gh-mcp" in asked
    assert "--yes" in asked and not (clone / ".bullpen").exists()
    out = cli(clone, "plan", "install", f"file://{shared}", "--yes")
    assert f"at {first}" in out
    assert "MODEL_API_KEY" in out and "[provided]" in out and "GITHUB_TOKEN" in out
    assert "[MISSING]" in out
    for session in ("research", "coder"):
        profile = auto_profile_name(session, clone)
        directory = partner_root / "profiles" / profile
        assert (directory / "SOUL.md").read_text() == SOUL
        assert (directory / "skills" / "review-checklist" / "SKILL.md").read_text() == SKILL
        assert is_set_up(profile, partner_root)
        assert (directory / ".env").resolve() == (partner_root / ".env").resolve()
        # config.yaml did not exist before the install: nothing of the partner's to back up
        assert not list(directory.glob("*bullpen-backup*")), list(directory.iterdir())
    assert (clone / "bullpen.yaml").read_bytes() == (shared / "bullpen.yaml").read_bytes()
    record = yaml.safe_load((clone / ".bullpen" / "plan" / "source.yaml").read_text())
    assert record == {"source": f"file://{shared}", "version": first}
    again = cli(clone, "plan", "install", f"file://{shared}")  # the same again: no change
    assert "unchanged" in again

    # The team changes both SOULs; the partner has edited research's SOUL meanwhile.
    (shared / "agents" / "coder" / "SOUL.md").write_text(SOUL + "Write small commits.\n")
    (shared / "agents" / "research" / "SOUL.md").write_text(SOUL + "Cite sources.\n")
    shared_config = shared / "agents" / "coder" / "config.yaml"
    shared_config.write_text(shared_config.read_text().replace("queue", "interrupt"))
    git(shared, "commit", "-qam", "sharper SOULs")
    second = git(shared, "rev-parse", "HEAD").strip()
    research = partner_root / "profiles" / auto_profile_name("research", clone) / "SOUL.md"
    research.write_text(SOUL + "My own line.\n")
    coder = partner_root / "profiles" / auto_profile_name("coder", clone) / "SOUL.md"
    deny.write(coder.parent, ["git push *--force*"])  # as a launch does: not the partner's

    shown = cli(clone, "plan", "update")  # no terminal, no --yes: shown, not applied
    assert "changed  agents/coder/SOUL.md (+1 -0)" in shown
    assert "+Write small commits." in shown and "--yes" in shown
    assert f"kept as yours (you changed it, and so did the plan): {research}" in shown
    assert coder.read_text() == SOUL
    declined = cli(clone, "plan", "update", input="n\n")
    assert coder.read_text() == SOUL and "apply" in declined

    config_before = (coder.parent / "config.yaml").read_bytes()
    applied = cli(clone, "plan", "update", "--yes")
    # config.yaml existed and changed: one backup, holding it as it was (not the plan's)
    [backup] = coder.parent.glob("*bullpen-backup*")
    assert backup.read_bytes() == config_before and f"kept in {backup}" in applied
    assert not list(research.parent.glob("*bullpen-backup*"))  # research's did not change
    assert coder.read_text() == SOUL + "Write small commits.\n"
    assert research.read_text() == SOUL + "My own line.\n"  # theirs, named
    config = yaml.safe_load((coder.parent / "config.yaml").read_text())
    assert config["display"] == {"busy_input_mode": "interrupt"}
    assert is_set_up(auto_profile_name("coder", clone), partner_root)
    assert f"updated to {second}" in applied
    assert (partner_root / ".env").read_text() == "MODEL_API_KEY=partner-own-key\n"
    assert "up to date" in cli(clone, "plan", "update")
    assert os.environ["HOME"] == str(partner_home)
