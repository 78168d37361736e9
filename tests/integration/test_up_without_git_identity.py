"""`bullpen up` on a machine where git has no identity: no user.name or user.email in any
git config and none in the environment. The fast way of making many worktrees writes
reflogs, which need a committer; without one each worktree is made by `git worktree add`,
and the sessions come up all the same."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import GIT_IDENTITY, git
from tests.rooms import live_room

SESSIONS = ("alice", "bob", "carol")


@pytest.fixture
def no_git_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "empty-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))  # no ~/.gitconfig, no XDG git config
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for key in (*GIT_IDENTITY, "EMAIL"):
        monkeypatch.delenv(key, raising=False)


def test_up_makes_every_worktree_without_a_git_identity(git_repo: Path, tmp_path: Path,
                                                        no_git_identity: None) -> None:
    # A host whose name git can make an address of would lend it one: auto-detection off.
    git(git_repo, "config", "user.useConfigOnly", "true")
    asked = subprocess.run(["git", "var", "GIT_COMMITTER_IDENT"], cwd=git_repo,
                           capture_output=True, text=True)
    assert asked.returncode != 0, f"git still has an identity: {asked.stdout}"
    plan = "".join(f"  {name}: {{}}\n" for name in SESSIONS)
    (git_repo / "bullpen.yaml").write_text(f"layout: windows\nagent: cat\nsessions:\n{plan}")
    with live_room(git_repo, tmp_path / "logs") as room:
        up = room.cli("up", "--detach", "--no-dashboard", check=False)
        assert up.returncode == 0, up.stderr
        rows = room.sessions()
        assert sorted(rows) == sorted(SESSIONS)
        listed = git(git_repo, "worktree", "list", "--porcelain")
        for name in SESSIONS:
            row = rows[name]
            worktree = Path(row["worktree"])
            assert row["pane"] and row["branch"] == f"bullpen/{name}", row
            assert (worktree / "src" / "app.py").read_text() == (
                git_repo / "src" / "app.py").read_text()
            assert git(worktree, "branch", "--show-current").strip() == f"bullpen/{name}"
            assert git(worktree, "status", "--porcelain") == ""
            assert f"worktree {worktree.resolve()}\n" in listed
            assert not (git_repo / ".git" / "worktrees" / name / "locked").exists()
