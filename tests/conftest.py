"""Fixtures shared by every tier: an isolated HOME, real git repositories, a room."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from board import sessions, store
from board.room import Room, open_room, prepare_home
from tests.pg_cluster import PgCluster, find_bin_dir
from worktrees import create_worktree

# A test module marked `both_stores` runs each test that opens a room once per backend.
STORES = ("sqlite", "postgresql")

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@example.com",
}


def pytest_configure(config: pytest.Config) -> None:
    """Let this run and every process it starts keep compiled bytecode.

    The suite starts thousands of Python processes (the CLI, coordinators, scripted
    agents, hermes). Under PYTHONDONTWRITEBYTECODE each one compiled every module it
    imported from source: `bullpen ls` took 2.0-2.9 s instead of 0.7-1.5 s, `hermes
    --version` 3.9-6.6 s instead of 1.6-1.9 s, tests/integration/test_notes.py 216 s
    instead of 65 s. The bytecode goes to __pycache__ (ignored by git); Python checks
    each file against its source, so a stale one is never used.
    """
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False


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


def add_session(room: Room, name: str) -> Path:
    """A session `name` registered with its own worktree, meant to run (no agent started)."""
    info = create_worktree(room.home.parent, name)
    sessions.register(room.conn, name, branch=info.branch, worktree=str(info.path),
                      base=info.base_commit)
    sessions.update(room.conn, name, desired="running")
    return info.path


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


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if ("store_backend" in metafunc.fixturenames
            and metafunc.definition.get_closest_marker("both_stores")):
        metafunc.parametrize("store_backend", STORES, indirect=True)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """A real PostgreSQL server for the whole run (skipped, with the reason, only when no
    server can run here at all)."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed;"
                    " .ci/run installs them")
    cluster = PgCluster(bin_dir)
    try:
        cluster.start()
    except (OSError, RuntimeError, KeyError) as error:
        cluster.stop()
        pytest.skip(f"cannot start a PostgreSQL server here: {error}")
    try:
        cluster.make_template()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def store_backend(request: pytest.FixtureRequest) -> str:
    """The room's store: SQLite unless the module runs on both (`both_stores`)."""
    return getattr(request, "param", "sqlite")


@pytest.fixture
def pg_database(request: pytest.FixtureRequest, store_backend: str) -> Iterator[str | None]:
    """A fresh PostgreSQL database URL for this test when it runs on PostgreSQL."""
    if store_backend != "postgresql":
        yield None
        return
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    name = cluster.new_database()
    yield cluster.url(name)
    cluster.drop_database(name)


@pytest.fixture
def room(git_repo: Path, pg_database: str | None) -> Iterator[Room]:
    """The operator's room for `git_repo`: a real SQLite file, or (under `both_stores`)
    a real PostgreSQL database named in the room's local config, as `room join` does."""
    if pg_database is not None:
        home = git_repo / ".bullpen"
        prepare_home(home)
        store.write_local(home, store=pg_database)
    opened = open_room(env={}, start=git_repo)
    yield opened
    opened.close()
