"""Bad input to the session commands: one line, exit status 2, nothing started."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from tests.conftest import git
from tests.rooms import live_room
from workers.tmux.server import RoomServer, socket_name_for

pytestmark = pytest.mark.both_stores


def assert_refused(result, needle: str) -> None:
    assert result.returncode == 2, result
    assert needle in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def nothing_started(repo: Path, name: str) -> None:
    assert not (repo / ".bullpen" / "worktrees" / name).exists()
    assert "bullpen/" + name not in git(repo, "branch", "--list")


@pytest.mark.parametrize("name", ["../x", "a b", "-x", "Upper", "a" * 41, "hermes/hermes-1",
                                  "pr-1/x", "all"])
def test_invalid_names(git_repo: Path, name: str) -> None:
    result = run_cli("spawn", name, "--agent", "sh", "--no-dashboard", cwd=git_repo)
    assert result.returncode == 2, result
    assert len(result.stderr.strip().splitlines()) == 1
    assert not RoomServer(socket_name_for(git_repo)).is_alive()
    if "/" not in name and name not in ("", "..", "."):
        nothing_started(git_repo, name)


def test_not_a_git_repository(tmp_path: Path) -> None:
    result = run_cli("spawn", "alice", "--agent", "sh", cwd=tmp_path)
    assert_refused(result, "not inside a git repository")


def test_repository_without_a_commit(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    result = run_cli("spawn", "alice", "--agent", "sh", "--no-dashboard", cwd=tmp_path)
    assert_refused(result, "no commit")
    nothing_started(tmp_path, "alice")


def test_tmux_missing_says_how_to_install(git_repo: Path, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(shutil.which("git"))
    result = run_cli("spawn", "alice", "--agent", "sh", cwd=git_repo,
                     env={"PATH": str(bin_dir)})
    assert_refused(result, "tmux is not installed")
    assert "apt-get install tmux" in result.stderr
    nothing_started(git_repo, "alice")


@pytest.mark.slow
def test_existing_name_and_profile_in_use(git_repo: Path, tmp_path: Path) -> None:
    with live_room(git_repo, tmp_path / "logs") as room:
        room.cli("spawn", "alice", "--agent", "cat", "--profile", "coder", "--no-dashboard")
        assert_refused(room.cli("spawn", "alice", "--agent", "cat", "--no-dashboard",
                                check=False), "already exists")
        refused = room.cli("spawn", "bob", "--agent", "cat", "--profile", "coder",
                           "--no-dashboard", check=False)
        assert_refused(refused, "profile 'coder' is in use by session 'alice'")
        nothing_started(git_repo, "bob")
        assert set(room.sessions()) == {"alice"}
        room.cli("stop", "alice")
        room.cli("spawn", "bob", "--agent", "cat", "--profile", "coder", "--no-dashboard")


def test_force_needs_remove(git_repo: Path) -> None:
    assert_refused(run_cli("down", "--force", cwd=git_repo), "--remove-worktrees")
    assert_refused(run_cli("stop", "x", "--force", cwd=git_repo), "--remove-worktree")


def test_unknown_session(git_repo: Path) -> None:
    for args, needle in ((["stop", "ghost"], "unknown session 'ghost'"),
                         (["restart", "ghost"], "unknown session 'ghost'"),
                         (["attach", "ghost"], "the room is not running")):
        result = run_cli(*args, cwd=git_repo, env={"PATH": os.environ["PATH"]})
        assert_refused(result, needle)
        # nothing started: no tmux server for the room, no coordinator
        assert not RoomServer(socket_name_for(git_repo)).is_alive(), args
        assert not (git_repo / ".bullpen" / "coordinator.lock").exists(), args


def test_an_agent_that_is_not_installed(git_repo: Path) -> None:
    result = run_cli("spawn", "alice", "--agent", "no-such-agent --flag", "--no-dashboard",
                     cwd=git_repo)
    assert_refused(result, "'no-such-agent' is not installed or not on PATH")
    nothing_started(git_repo, "alice")
    assert not RoomServer(socket_name_for(git_repo)).is_alive()


def test_restart_refuses_a_session_that_runs_outside_bullpen(git_repo: Path) -> None:
    assert run_cli("register", "outsider", cwd=git_repo).returncode == 0
    result = run_cli("restart", "outsider", cwd=git_repo)
    assert_refused(result, "runs outside bullpen")
    assert not RoomServer(socket_name_for(git_repo)).is_alive()
    nothing_started(git_repo, "outsider")
