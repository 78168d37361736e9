"""Preparing Hermes profiles: shown, backed up, reversible; bad input refused untouched."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from board import sessions
from board.errors import BadInput, Refused
from board.room import Room
from tests.cli_runner import BULLPEN, run_cli
from workers.agents.hermes import launch as hermes_launch
from workers.agents.hermes import profile as hermes_profile

USER_CONFIG = """\
# my hermes settings
model:
  default: gpt-x   # the good one
display:
  busy_input_mode: interrupt
"""


@pytest.fixture
def hermes_home(tmp_path: Path) -> Path:
    """A Hermes root with a default profile (config + secrets) and a `coder` profile."""
    root = tmp_path / ".hermes"
    (root / "profiles" / "coder").mkdir(parents=True)
    (root / "config.yaml").write_text(USER_CONFIG)
    (root / ".env").write_text("OPENAI_API_KEY=sk-secret\n")
    (root / "profiles" / "coder" / "config.yaml").write_text(USER_CONFIG)
    return root


def test_setup_appends_our_keys_and_unsetup_restores_the_exact_bytes(
        hermes_home: Path) -> None:
    plan = hermes_profile.prepare_profile("coder", "research", hermes_home, executable=BULLPEN)
    assert plan.config_path.read_text() == USER_CONFIG  # nothing written yet
    assert "+mcp_servers:" in plan.diff() and "-" not in plan.diff().split("@@")[-1][:2]
    backup = hermes_profile.apply_plan(plan)
    assert backup is not None and backup.read_text() == USER_CONFIG
    text = plan.config_path.read_text()
    assert text.startswith(USER_CONFIG)  # comments and layout kept
    config = yaml.safe_load(text)
    assert config["mcp_servers"]["bullpen"] == {
        "command": BULLPEN, "args": ["mcp"],
        "env": {"BULLPEN_HOME": "${BULLPEN_HOME}", "BULLPEN_SESSION": "${BULLPEN_SESSION}",
                "BULLPEN_TOKEN": "${BULLPEN_TOKEN}"}}
    for event in ("pre_llm_call", "post_tool_call", "on_session_end"):
        assert config["hooks"][event] == [{"command": f"{BULLPEN} hook hermes", "timeout": 10}]
    again = hermes_profile.prepare_profile("coder", "research", hermes_home, executable=BULLPEN)
    assert not again.changed

    assert hermes_profile.unsetup("coder", hermes_home) is not None
    assert plan.config_path.read_text() == USER_CONFIG
    assert hermes_profile.unsetup("coder", hermes_home) is None


def test_existing_sections_are_merged_and_kept_on_unsetup(hermes_home: Path) -> None:
    path = hermes_home / "profiles" / "coder" / "config.yaml"
    path.write_text("mcp_servers:\n  github: {command: gh-mcp}\nhooks:\n"
                    "  on_session_end:\n  - {command: notify-send done}\n")
    hermes_profile.apply_plan(
        hermes_profile.prepare_profile("coder", "x", hermes_home, executable=BULLPEN))
    config = yaml.safe_load(path.read_text())
    assert sorted(config["mcp_servers"]) == ["bullpen", "github"]
    assert [h["command"] for h in config["hooks"]["on_session_end"]] == [
        "notify-send done", f"{BULLPEN} hook hermes"]
    hermes_profile.unsetup("coder", hermes_home)
    assert yaml.safe_load(path.read_text()) == {
        "mcp_servers": {"github": {"command": "gh-mcp"}},
        "hooks": {"on_session_end": [{"command": "notify-send done"}]}}


def test_auto_profile_is_cloned_without_copying_secrets(hermes_home: Path) -> None:
    plan = hermes_profile.prepare_profile("auto", "research", hermes_home, executable=BULLPEN)
    assert plan.profile == "bullpen-research" and plan.create
    assert not plan.directory.exists()
    hermes_profile.apply_plan(plan)
    directory = hermes_home / "profiles" / "bullpen-research"
    config = yaml.safe_load((directory / "config.yaml").read_text())
    assert config["model"] == {"default": "gpt-x"} and "bullpen" in config["mcp_servers"]
    assert (directory / ".env").is_symlink()
    assert (directory / ".env").resolve() == (hermes_home / ".env").resolve()
    secret_copies = [p for p in hermes_home.rglob("*")
                     if p.is_file() and not p.is_symlink() and "sk-secret" in p.read_text()]
    assert secret_copies == [hermes_home / ".env"]
    # A second launch of the same session reuses the profile as it is.
    assert not hermes_profile.prepare_profile("auto", "research", hermes_home,
                                      executable=BULLPEN).changed


def test_missing_profile_is_a_clear_error(hermes_home: Path) -> None:
    with pytest.raises(BadInput, match="hermes profile 'ghost' does not exist"):
        hermes_profile.prepare_profile("ghost", "x", hermes_home, executable=BULLPEN)


def test_unparsable_config_is_refused_and_untouched(hermes_home: Path) -> None:
    path = hermes_home / "profiles" / "coder" / "config.yaml"
    broken = b"model:\n  default: [unclosed\n\xc3\xa9: x\n"
    path.write_bytes(broken)
    result = run_cli("hermes", "setup", "coder", "--yes", cwd=hermes_home,
                     env={"HERMES_HOME": str(hermes_home)})
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"bullpen: {path} does not parse as YAML at line 3; fix it first, nothing was changed"]
    assert path.read_bytes() == broken
    assert list(path.parent.glob("config.yaml.bullpen-backup-*")) == []


def test_cli_setup_shows_the_diff_then_unsetup(hermes_home: Path) -> None:
    env = {"HERMES_HOME": str(hermes_home)}
    shown = run_cli("hermes", "setup", "coder", cwd=hermes_home, env=env, input="")
    assert shown.returncode == 2 and "needs confirmation" in shown.stderr
    assert "+  bullpen:" in shown.stdout
    done = run_cli("hermes", "setup", "coder", "--yes", cwd=hermes_home, env=env)
    assert done.returncode == 0, done.stderr
    assert "backup:" in done.stdout
    undone = run_cli("hermes", "unsetup", "coder", "--yes", cwd=hermes_home, env=env)
    assert undone.returncode == 0, undone.stderr
    assert (hermes_home / "profiles" / "coder" / "config.yaml").read_text() == USER_CONFIG


def test_a_second_session_on_a_profile_in_use_is_refused(room: Room) -> None:
    sessions.register(room.conn, "coder", profile="work")
    sessions.update(room.conn, "coder", desired="running")
    with pytest.raises(Refused, match="profile 'work' is in use by session 'coder'"):
        sessions.register(room.conn, "reviewer", profile="work")


def test_launch_command_and_env() -> None:
    assert hermes_launch.hermes_command("bullpen-research") == "hermes -p bullpen-research --cli"
    assert hermes_launch.hermes_env() == {"HERMES_ACCEPT_HOOKS": "1"}


SECRET = "sk-literal-SECRET-77aa"


def test_auto_profile_refers_to_secrets_and_carries_soul_and_skills(hermes_home: Path) -> None:
    (hermes_home / "config.yaml").write_text(yaml.safe_dump({
        "model": {"provider": "custom", "base_url": "http://127.0.0.1:1/v1",
                  "api_key": SECRET},
        "tools": {"search": {"token": SECRET + "-2"}}}))
    (hermes_home / "config.yaml").chmod(0o600)
    (hermes_home / "SOUL.md").write_text("I am careful.\n")
    (hermes_home / "skills" / "tidy").mkdir(parents=True)
    (hermes_home / "skills" / "tidy" / "SKILL.md").write_text("# tidy\n")
    plan = hermes_profile.prepare_profile(hermes_profile.AUTO, "scout", hermes_home,
                                          executable=BULLPEN)
    assert SECRET not in plan.after and SECRET not in plan.diff()
    hermes_profile.apply_plan(plan)
    profile = plan.directory
    written = [path for path in profile.rglob("*") if path.is_file() and not path.is_symlink()]
    assert written and all(SECRET.encode() not in path.read_bytes() for path in written)
    config = yaml.safe_load((profile / "config.yaml").read_text())
    assert config["model"]["api_key"] == "${BULLPEN_SECRET_MODEL__API_KEY}"
    assert hermes_launch.launch_secrets(plan.profile, hermes_home) == {
        "BULLPEN_SECRET_MODEL__API_KEY": SECRET,
        "BULLPEN_SECRET_TOOLS__SEARCH__TOKEN": SECRET + "-2"}
    assert (profile / "SOUL.md").read_text() == "I am careful.\n"
    assert (profile / "skills" / "tidy" / "SKILL.md").exists()
    assert (profile / ".env").is_symlink()
    assert oct(profile.stat().st_mode & 0o777) == oct(0o700)
    assert oct((profile / "config.yaml").stat().st_mode & 0o777) == oct(0o600)


def test_setup_keeps_a_private_config_private(hermes_home: Path) -> None:
    config = hermes_home / "profiles" / "coder" / "config.yaml"
    config.chmod(0o600)
    backup = hermes_profile.apply_plan(hermes_profile.prepare_profile("coder", "x", hermes_home,
                                                      executable=BULLPEN))
    assert backup is not None
    assert oct(config.stat().st_mode & 0o777) == oct(0o600)
    assert oct(backup.stat().st_mode & 0o777) == oct(0o600)


def test_restart_refuses_a_profile_that_lost_its_set_up(
        room: Room, hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from workers.agents.launch import launch_plan

    monkeypatch.setenv("HERMES_HOME", str(hermes_home))
    hermes_profile.apply_plan(
        hermes_profile.prepare_profile("coder", "x", hermes_home, executable=BULLPEN))
    sessions.register(room.conn, "coder", agent="hermes", profile="coder")
    session = sessions.require(room.conn, "coder")
    assert "hermes -p coder --cli" in launch_plan(session, "t", room.home).command
    hermes_profile.unsetup("coder", hermes_home)
    with pytest.raises(Refused) as refused:
        launch_plan(session, "t", room.home)
    assert str(refused.value) == ("hermes profile 'coder' no longer has bullpen's MCP server"
                                  " and hooks; set it up again with: bullpen hermes setup coder")


def test_setup_adds_the_hook_that_checks_each_terminal_command(hermes_home: Path) -> None:
    plan = hermes_profile.prepare_profile("coder", "research", hermes_home, executable=BULLPEN)
    hermes_profile.apply_plan(plan)
    config = yaml.safe_load(plan.config_path.read_text())
    assert config["hooks"]["pre_tool_call"] == [
        {"command": f"{BULLPEN} hook hermes", "timeout": 10, "matcher": "terminal"}]
    hermes_profile.unsetup("coder", hermes_home)
    assert plan.config_path.read_text() == USER_CONFIG


def test_a_profile_set_up_before_the_pre_tool_hook_gets_it_at_its_next_launch(
        room: Room, hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Set up by an earlier bullpen (no pre_tool_call hook): still set up, and its next
    launch adds the hook, run as the profile's other bullpen hooks run."""
    from workers.agents.launch import launch_plan

    monkeypatch.setenv("HERMES_HOME", str(hermes_home))
    plan = hermes_profile.prepare_profile("coder", "x", hermes_home, executable="/old/bullpen")
    hermes_profile.apply_plan(plan)
    config = yaml.safe_load(plan.config_path.read_text())
    del config["hooks"]["pre_tool_call"]
    plan.config_path.write_text(yaml.safe_dump(config))
    sessions.register(room.conn, "coder", agent="hermes", profile="coder")
    session = sessions.require(room.conn, "coder")
    assert "hermes -p coder --cli" in launch_plan(session, "t", room.home).command
    upgraded = yaml.safe_load(plan.config_path.read_text())
    assert upgraded["hooks"]["pre_tool_call"] == [
        {"command": "/old/bullpen hook hermes", "timeout": 10, "matcher": "terminal"}]
    assert {key: value for key, value in upgraded.items() if key != "approvals"} == {
        **config, "hooks": {**config["hooks"], "pre_tool_call": upgraded["hooks"][
            "pre_tool_call"]}}
    text = plan.config_path.read_text()
    launch_plan(session, "t", room.home)
    assert plan.config_path.read_text() == text  # once
