"""spawn is all or nothing even when a late step fails for real: every check passed, the
worktree, branch and session row were made, then tmux refused to start the pane. What
the spawn made is gone; what was the user's (an earlier branch of the same name, the
repository's other branches and worktrees) is exactly as before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from board import sessions
from board.room import Room
from tests.cli_runner import run_cli
from tests.conftest import commit_file, git
from tests.hermes_install import install_beside_hermes
from worktrees import create_worktree
from worktrees.remove import remove_worktree


@pytest.fixture
def tmux_refusing(tmp_path: Path) -> dict[str, str]:
    """tmux is installed (spawn's checks pass) but cannot make its socket directory."""
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("tmux puts its sockets under TMUX_TMPDIR; this is a file\n")
    return {"TMUX_TMPDIR": str(blocker)}


def repo_state(repo: Path) -> tuple[str, str, str]:
    return (git(repo, "for-each-ref", "--format=%(refname) %(objectname)"),
            git(repo, "worktree", "list", "--porcelain"),
            git(repo, "status", "--porcelain", "--ignored"))


def spawn_failing(room: Room, env: dict[str, str], agent: str = "cat") -> None:
    result = run_cli("spawn", "c9", "--agent", agent, "--no-dashboard", cwd=room.home.parent,
                     env=env)
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "tmux" in result.stderr, result.stderr
    assert sessions.get(room.conn, "c9") is None
    assert not (room.home / "worktrees" / "c9").exists()


def test_a_pane_tmux_refuses_undoes_the_worktree_branch_and_session(
        room: Room, tmux_refusing: dict[str, str]) -> None:
    repo = room.home.parent
    before = repo_state(repo)
    spawn_failing(room, tmux_refusing)
    assert repo_state(repo) == before  # no bullpen/c9 branch, no worktree, nothing dirty


def test_an_earlier_branch_of_the_same_name_survives_the_undo(
        room: Room, tmux_refusing: dict[str, str]) -> None:
    """c9 ran before and left committed work on bullpen/c9 (its worktree since removed):
    the failed spawn takes back the worktree it made for that branch, never the branch."""
    repo = room.home.parent
    earlier = create_worktree(repo, "c9")
    commit_file(earlier.path, "work.md", "c9's earlier work\n", "earlier work")
    remove_worktree(repo, "c9", force=True, delete_branch=False)
    before = repo_state(repo)
    assert "refs/heads/bullpen/c9" in before[0]
    spawn_failing(room, tmux_refusing)
    assert repo_state(repo) == before


def test_a_hermes_profile_made_for_the_session_goes_too(
        room: Room, tmux_refusing: dict[str, str]) -> None:
    """A hermes session gets its own `bullpen-c9-<repo hash>` profile (cloned from the default one)
    before its pane starts; when the pane fails, that profile is taken back, and the
    user's own hermes home is left as it was."""
    hermes_home = Path(os.environ["HOME"]) / ".hermes"
    (hermes_home / "profiles" / "mine").mkdir(parents=True)
    (hermes_home / "config.yaml").write_text("model: {default: their-model}\n")
    before = sorted(hermes_home.rglob("*"))
    # The real CLI on PATH: spawn's checks pass, and only the pane fails.
    path = f"{install_beside_hermes()}{os.pathsep}{os.environ['PATH']}"
    spawn_failing(room, {**tmux_refusing, "PATH": path}, agent="hermes")
    assert sorted(hermes_home.rglob("*")) == before
    assert (hermes_home / "config.yaml").read_text() == "model: {default: their-model}\n"
