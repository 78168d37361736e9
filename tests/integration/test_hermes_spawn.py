"""Spawning a hermes session prepares its profile: a dedicated one, or a set-up one."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import git
from tests.integration.test_down_waits import alive
from tests.rooms import live_room
from tests.waiting import wait_until
from workers.agents.hermes.profile import auto_profile_name


@pytest.fixture
def hermes_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "hermes-home"
    home.mkdir()
    (home / "config.yaml").write_text("model: {default: m}\n")  # the default profile
    (home / "profiles" / "mine").mkdir(parents=True)
    (home / "profiles" / "mine" / "config.yaml").write_text("# my own settings\nx: 1\n")
    monkeypatch.setenv("HERMES_HOME", str(home))
    stub = tmp_path / "bin" / "hermes"  # stands in for the hermes program (not run here)
    stub.parent.mkdir()
    stub.write_text("#!/bin/sh\nexec cat\n")
    stub.chmod(0o755)
    monkeypatch.setenv("PATH", f"{stub.parent}{os.pathsep}{os.environ['PATH']}")
    return home


@pytest.mark.slow
def test_hermes_profiles_on_spawn(git_repo: Path, tmp_path: Path, hermes_home: Path) -> None:
    with live_room(git_repo, tmp_path / "logs") as room:
        refused = room.cli("spawn", "scout", "--agent", "hermes", "--profile", "mine",
                           "--no-dashboard", check=False)
        assert refused.returncode == 2
        assert "bullpen hermes setup mine" in refused.stderr
        assert (hermes_home / "profiles" / "mine" / "config.yaml").read_text() == \
            "# my own settings\nx: 1\n"
        assert not (git_repo / ".bullpen" / "worktrees" / "scout").exists()

        missing = room.cli("spawn", "scout", "--agent", "hermes", "--profile", "nope",
                           "--no-dashboard", check=False)
        assert missing.returncode == 2 and "does not exist" in missing.stderr

        room.cli("spawn", "scout", "--agent", "hermes", "--no-dashboard")
        profile = auto_profile_name("scout", git_repo)  # bullpen-scout-<repo hash>
        assert profile.startswith("bullpen-scout-") and len(profile) == len("bullpen-scout-") + 6
        dedicated = hermes_home / "profiles" / profile / "config.yaml"
        config = yaml.safe_load(dedicated.read_text())
        assert config["mcp_servers"]["bullpen"]["args"] == ["mcp"]
        assert set(config["hooks"]) >= {"pre_llm_call", "post_tool_call", "on_session_end"}
        assert config["model"] == {"default": "m"}
        with room.db() as conn:
            profile = conn.execute("SELECT profile FROM sessions WHERE name = 'scout'")
            assert profile.fetchone()[0] == auto_profile_name("scout", git_repo)


@pytest.mark.slow
def test_the_sessions_own_orphan_is_ended_when_up_starts_it_again(
        git_repo: Path, tmp_path: Path, hermes_home: Path) -> None:
    """The tmux server died but the session's Hermes lived on (it outlives its hangup):
    `up` ends that orphan of the session itself instead of refusing its own profile, and
    another room still cannot take the profile while it lives."""
    state = tmp_path / "orphan.state"
    agent = Path(__file__).resolve().parents[1] / "agents" / "hangup_agent.py"
    stub = tmp_path / "bin" / "hermes"  # a Hermes that ignores SIGHUP and SIGTERM
    stub.write_text(f'#!/bin/sh\n[ "$1" = --version ] && exec echo "Hermes Agent v0.19.0"\n'
                    f"exec {sys.executable} {agent} {state} --ignore\n")
    with live_room(git_repo, tmp_path / "logs") as room:
        room.cli("spawn", "scout", "--agent", "hermes", "--no-dashboard")
        first = int(wait_until(lambda: state.exists() and state.read_text().split()[1:2],
                               15, message="the stand-in's pid")[0])
        room.server.kill_server()
        assert alive(first)  # the orphan, holding scout's profile
        profile = auto_profile_name("scout", git_repo)
        other = tmp_path / "other"
        # A clone, not a copy: the room's coordinator still writes in its .git (the radar's
        # index locks come and go), so a copy of that directory can race it.
        git(tmp_path, "clone", "-q", str(git_repo), str(other))
        with live_room(other, tmp_path / "logs-other") as stranger:
            taken = stranger.cli("spawn", "s2", "--agent", "hermes", "--profile", profile,
                                 "--no-dashboard", check=False)
            assert taken.returncode == 2 and f"(pid {first})" in taken.stderr
        again = room.cli("up", "--detach", "--no-dashboard")
        assert not alive(first)
        assert "restarted scout" in again.stdout, again.stdout
        wait_until(lambda: state.read_text().count("pid ") == 2, 30,
                   message=lambda: f"scout started again: {state.read_text()}"
                   f" {room.sessions()} {again.stdout}")

        # Orphaned again, then `down` with no tmux server left: it is ended all the same.
        second = int(state.read_text().split("pid ")[2].split()[0])
        room.server.kill_server()
        assert alive(second)
        done = room.cli("down", "--timeout", "1")
        assert not alive(second)
        assert f"(pid {second})" in done.stdout  # named as ended
