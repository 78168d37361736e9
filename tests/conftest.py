"""Fixtures shared by every tier: an isolated HOME, real git repositories, a room."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from board.room import Room, open_room

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@example.com",
}


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory,
                 monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the developer's HOME, git config, tmux or bullpen identity."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    for key, value in GIT_IDENTITY.items():
        monkeypatch.setenv(key, value)
    for key in ("BULLPEN_HOME", "BULLPEN_SESSION", "BULLPEN_TOKEN", "TMUX", "TMUX_PANE"):
        monkeypatch.delenv(key, raising=False)


def git(cwd: Path, *args: str) -> str:
    """Run git in `cwd` and return its stdout (raises on failure)."""
    result = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                            text=True)
    return result.stdout


def commit_file(cwd: Path, rel: str, text: str, message: str) -> str:
    """Write `rel` in `cwd`, commit it, and return the new commit's sha."""
    target = cwd / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    git(cwd, "add", rel)
    git(cwd, "commit", "-qm", message)
    return git(cwd, "rev-parse", "HEAD").strip()


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A real repository with one commit on `main` holding src/app.py and README.md."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("def handler():\n    return 'v1'\n")
    (repo / "README.md").write_text("# demo repo\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial commit")
    return repo


@pytest.fixture
def room(git_repo: Path) -> Iterator[Room]:
    """The operator's room for `git_repo`, on a real SQLite file."""
    opened = open_room(env={}, start=git_repo)
    yield opened
    opened.close()
