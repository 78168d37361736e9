"""Merging one session's committed work into another's worktree, never losing local work."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import commit_file, git
from worktrees import BadWorktreeInput, WorktreeError, create_worktree, sync

PRECIOUS = b"uncommitted \xe2\x9c\x8d\r\nno trailing newline"



def head(cwd: Path) -> str:
    return git(cwd, "rev-parse", "HEAD").strip()


def merging(cwd: Path) -> bool:
    probe = ["git", "rev-parse", "--quiet", "--verify", "MERGE_HEAD"]
    return subprocess.run(probe, cwd=cwd, capture_output=True).returncode == 0


@pytest.fixture
def pair(git_repo: Path) -> tuple[Path, Path]:
    """Two sessions' worktrees, `a` and `b`, both starting at main's HEAD."""
    return create_worktree(git_repo, "a").path, create_worktree(git_repo, "b").path


def test_fast_forward_brings_the_other_sessions_commits(pair: tuple[Path, Path]) -> None:
    a, b = pair
    tip = commit_file(b, "research.md", "findings\n", "research")

    report = sync(a, "bullpen/b")

    assert (report.merged, report.fast_forward, report.conflicts) == (True, True, ())
    assert "bullpen/b" in report.message
    assert head(a) == tip
    assert (a / "research.md").read_text() == "findings\n"


def test_diverged_branches_get_a_merge_commit(pair: tuple[Path, Path]) -> None:
    a, b = pair
    commit_file(a, "code.py", "x = 1\n", "code")
    commit_file(b, "research.md", "findings\n", "research")
    (a / "scratch.txt").write_bytes(PRECIOUS)  # untouched by the merge

    report = sync(a, "bullpen/b")

    assert (report.merged, report.fast_forward) == (True, False)
    assert git(a, "log", "-1", "--format=%P").count(" ") == 1  # two parents
    assert (a / "research.md").exists() and (a / "code.py").exists()
    assert (a / "scratch.txt").read_bytes() == PRECIOUS


def test_already_up_to_date(pair: tuple[Path, Path]) -> None:
    a, _ = pair
    before = head(a)

    report = sync(a, "bullpen/b")

    assert (report.merged, report.fast_forward) == (False, False)
    assert "already up to date" in report.message
    assert head(a) == before


def test_conflict_is_aborted_and_local_work_is_intact(pair: tuple[Path, Path]) -> None:
    a, b = pair
    mine = commit_file(a, "src/app.py", "def handler():\n    return 'a'\n", "a's version")
    commit_file(b, "src/app.py", "def handler():\n    return 'b'\n", "b's version")
    (a / "README.md").write_bytes(PRECIOUS)  # modified, uncommitted, not in the merge
    (a / "draft.txt").write_bytes(PRECIOUS)  # untracked

    report = sync(a, "bullpen/b")

    assert (report.merged, report.conflicts) == (False, ("src/app.py",))
    assert "src/app.py" in report.message and "\n" not in report.message
    assert head(a) == mine
    assert not merging(a)
    assert (a / "src" / "app.py").read_text() == "def handler():\n    return 'a'\n"
    assert (a / "README.md").read_bytes() == PRECIOUS
    assert (a / "draft.txt").read_bytes() == PRECIOUS
    assert git(a, "status", "--porcelain") == " M README.md\n?? draft.txt\n"


def test_conflicts_can_be_kept_for_the_user(pair: tuple[Path, Path]) -> None:
    a, b = pair
    commit_file(a, "src/app.py", "a\n", "a's version")
    commit_file(b, "src/app.py", "b\n", "b's version")

    report = sync(a, "bullpen/b", keep_conflicts=True)

    assert (report.merged, report.conflicts) == (False, ("src/app.py",))
    assert "git merge --abort" in report.message
    assert merging(a)
    assert "<<<<<<<" in (a / "src" / "app.py").read_text()
    with pytest.raises(WorktreeError, match="a merge is already in progress"):
        sync(a, "bullpen/b")


@pytest.mark.parametrize("fast_forward", [True, False])
def test_local_changes_in_the_way_block_the_merge(pair: tuple[Path, Path],
                                                  fast_forward: bool) -> None:
    a, b = pair
    if not fast_forward:
        commit_file(a, "code.py", "x = 1\n", "code")
    commit_file(b, "src/app.py", "b\n", "b's version")
    (a / "src" / "app.py").write_bytes(PRECIOUS)
    before = head(a)

    report = sync(a, "bullpen/b")

    assert (report.merged, report.conflicts) == (False, ())
    assert report.blocked_by == ("src/app.py",)
    assert "commit or stash" in report.message
    assert head(a) == before
    assert (a / "src" / "app.py").read_bytes() == PRECIOUS


def test_untracked_file_in_the_way_blocks_the_merge(pair: tuple[Path, Path]) -> None:
    a, b = pair
    commit_file(b, "plan.md", "b's plan\n", "plan")
    (a / "plan.md").write_bytes(PRECIOUS)

    report = sync(a, "bullpen/b")

    assert (report.merged, report.blocked_by) == (False, ("plan.md",))
    assert (a / "plan.md").read_bytes() == PRECIOUS


def test_staged_work_is_never_swept_into_a_merge(pair: tuple[Path, Path]) -> None:
    a, b = pair
    commit_file(a, "code.py", "x = 1\n", "code")
    commit_file(b, "research.md", "findings\n", "research")
    (a / "README.md").write_bytes(PRECIOUS)
    git(a, "add", "README.md")
    before = head(a)

    report = sync(a, "bullpen/b")

    assert (report.merged, report.blocked_by) == (False, ("README.md",))
    assert head(a) == before
    assert (a / "README.md").read_bytes() == PRECIOUS
    assert git(a, "diff", "--cached", "--name-only") == "README.md\n"


def test_unknown_branch_is_bad_input(pair: tuple[Path, Path]) -> None:
    a, _ = pair
    with pytest.raises(BadWorktreeInput, match="unknown ref 'bullpen/ghost'"):
        sync(a, "bullpen/ghost")
