"""`bullpen diff` and `bullpen sync` on real worktrees, through the real console script."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from board import reads, sessions
from board.room import Room
from tests.cli_runner import identity, run_cli
from tests.conftest import git

pytestmark = pytest.mark.both_stores


def add_session(room: Room, repo: Path, name: str) -> tuple[Path, dict[str, str]]:
    """A registered session with its worktree on `bullpen/<name>`; returns its path and env."""
    path = repo / ".bullpen" / "worktrees" / name
    git(repo, "worktree", "add", "-q", "-b", f"bullpen/{name}", str(path))
    token = sessions.register(room.conn, name, branch=f"bullpen/{name}", worktree=str(path),
                              base=git(repo, "rev-parse", "HEAD").strip())
    return path, identity(room.home, name, token)


@pytest.fixture
def pair(room: Room, git_repo: Path) -> dict[str, tuple[Path, dict[str, str]]]:
    return {name: add_session(room, git_repo, name) for name in ("a", "b")}


def commit(tree: Path, relative: str, text: str, message: str) -> str:
    (tree / relative).write_text(text)
    git(tree, "add", relative)
    git(tree, "commit", "-qm", message)
    return git(tree, "rev-parse", "HEAD").strip()


def test_diff_shows_commits_and_uncommitted_work(room: Room, git_repo: Path, pair) -> None:
    tree_a, _ = pair["a"]
    commit(tree_a, "src/app.py", "def handler():\n    return 'v2'\n", "v2")
    (tree_a / "README.md").write_text("# edited, not committed\n")
    (tree_a / "notes.md").write_text("brand new\n")

    whole = run_cli("diff", "a", cwd=git_repo)
    assert whole.returncode == 0, whole.stderr
    assert "+    return 'v2'" in whole.stdout
    assert "+# edited, not committed" in whole.stdout
    assert "+brand new" in whole.stdout

    one = run_cli("diff", "a", "--", "README.md", cwd=git_repo)
    assert "README.md" in one.stdout and "src/app.py" not in one.stdout

    as_json = json.loads(run_cli("diff", "--json", "a", "--", "src/app.py",
                                 cwd=git_repo).stdout)
    assert as_json["session"] == "a" and as_json["paths"] == ["src/app.py"]
    assert as_json["branch"] == "bullpen/a" and "'v2'" in as_json["diff"]


def test_diff_of_a_session_without_changes_says_so(room: Room, git_repo: Path, pair) -> None:
    result = run_cli("diff", "b", cwd=git_repo)
    assert result.returncode == 0 and result.stdout == ""
    assert "no changes" in result.stderr


def test_diff_of_an_unknown_session_is_bad_input(room: Room, git_repo: Path) -> None:
    result = run_cli("diff", "ghost", cwd=git_repo)
    assert result.returncode == 2 and "unknown session 'ghost'" in result.stderr


def test_sync_merges_committed_work_and_keeps_mine(room: Room, git_repo: Path, pair) -> None:
    tree_a, _ = pair["a"]
    tree_b, env_b = pair["b"]
    sha = commit(tree_a, "src/app.py", "def handler():\n    return 'v2'\n", "v2")
    (tree_b / "README.md").write_text("# b's uncommitted work\n")

    result = run_cli("sync", "a", cwd=tree_b, env=env_b)
    assert result.returncode == 0, result.stderr
    assert "session b: merged bullpen/a" in result.stdout
    assert git(tree_b, "merge-base", "--is-ancestor", sha, "HEAD") == ""
    assert "'v2'" in (tree_b / "src" / "app.py").read_text()
    assert (tree_b / "README.md").read_text() == "# b's uncommitted work\n"


def test_sync_with_conflicts_reports_them_and_changes_nothing(room: Room, git_repo: Path,
                                                              pair) -> None:
    tree_a, _ = pair["a"]
    tree_b, env_b = pair["b"]
    commit(tree_a, "src/app.py", "a's version\n", "a")
    mine = commit(tree_b, "src/app.py", "b's version\n", "b")
    (tree_b / "README.md").write_text("# b's uncommitted work\n")

    result = run_cli("sync", "a", cwd=tree_b, env=env_b)
    assert result.returncode == 1
    assert "conflict: src/app.py" in result.stdout
    assert "--keep-conflicts" in result.stdout  # the option the user can type, by its name
    assert git(tree_b, "rev-parse", "HEAD").strip() == mine
    assert (tree_b / "src" / "app.py").read_text() == "b's version\n"
    assert (tree_b / "README.md").read_text() == "# b's uncommitted work\n"
    report = json.loads(run_cli("sync", "a", "--json", cwd=tree_b, env=env_b).stdout)
    assert report["conflicts"] == ["src/app.py"] and report["merged"] is False


def test_sync_refuses_to_overwrite_uncommitted_work(room: Room, git_repo: Path, pair) -> None:
    tree_a, _ = pair["a"]
    tree_b, env_b = pair["b"]
    commit(tree_a, "src/app.py", "a's version\n", "a")
    (tree_b / "src" / "app.py").write_text("b's unsaved idea\n")

    result = run_cli("sync", "a", cwd=tree_b, env=env_b)
    assert result.returncode == 1
    assert "uncommitted, would be overwritten: src/app.py" in result.stdout
    assert (tree_b / "src" / "app.py").read_text() == "b's unsaved idea\n"


def test_the_operator_syncs_into_the_main_checkout(room: Room, git_repo: Path, pair) -> None:
    tree_a, _ = pair["a"]
    sha = commit(tree_a, "src/app.py", "a's version\n", "a")
    result = run_cli("sync", "a", cwd=git_repo)
    assert result.returncode == 0, result.stderr
    assert "the main checkout: merged bullpen/a (fast-forward)" in result.stdout
    assert git(git_repo, "rev-parse", "HEAD").strip() == sha


def test_a_session_cannot_sync_itself(room: Room, git_repo: Path, pair) -> None:
    tree_b, env_b = pair["b"]
    result = run_cli("sync", "b", cwd=tree_b, env=env_b)
    assert result.returncode == 2 and "into itself" in result.stderr


def test_read_outside_the_worktree_records_nothing(room: Room, git_repo: Path, pair) -> None:
    tree_b, env_b = pair["b"]
    for outside in ("../../../src/app.py", "/etc/hostname"):
        result = run_cli("read", outside, cwd=tree_b, env=env_b)
        assert result.returncode == 2, result
        assert "outside the repository" in result.stderr
    assert reads.of_session(room.conn, "b") == []
    ok = run_cli("read", "src/app.py", cwd=tree_b / "src" / "..", env=env_b)
    assert ok.returncode == 0 and [p for p, _ in reads.of_session(room.conn, "b")] == [
        "src/app.py"]
