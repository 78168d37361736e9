"""Removing worktrees: refusals that protect work, and force."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from worktrees import (
    BadWorktreeInput,
    UnsafeRemoval,
    WorktreeError,
    create_worktree,
    remove_worktree,
)

PRECIOUS = b"half-written idea \xe2\x9c\x8d\r\nno trailing newline"


def branches(repo: Path) -> list[str]:
    return git(repo, "branch", "--format=%(refname:short)").split()


def commit_in(cwd: Path, rel: str, text: str) -> None:
    (cwd / rel).write_text(text)
    git(cwd, "add", rel)
    git(cwd, "commit", "-qm", f"edit {rel}")


def test_clean_merged_worktree_and_branch_are_removed(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")

    removed = remove_worktree(git_repo, "coder")

    assert (removed.worktree_removed, removed.branch_deleted) == (True, True)
    assert not info.path.exists()
    assert branches(git_repo) == ["main"]
    # The branch's config section (its recorded base) goes with it.
    assert "bullpen-base" not in git(git_repo, "config", "--list", "--local")


@pytest.mark.parametrize("kind", ["untracked", "modified", "staged"])
def test_uncommitted_work_survives_a_refused_removal_byte_for_byte(git_repo: Path,
                                                                   kind: str) -> None:
    info = create_worktree(git_repo, "coder")
    target = info.path / ("notes.bin" if kind == "untracked" else "src/app.py")
    target.write_bytes(PRECIOUS)
    if kind == "staged":
        git(info.path, "add", "-A")

    with pytest.raises(UnsafeRemoval, match="has uncommitted changes") as caught:
        remove_worktree(git_repo, "coder")

    assert caught.value.exit_status == 2
    assert "remove with --force" in str(caught.value)
    assert target.relative_to(info.path).as_posix() in str(caught.value)
    assert "\n" not in str(caught.value)
    assert target.read_bytes() == PRECIOUS
    assert "bullpen/coder" in branches(git_repo)
    assert git(info.path, "branch", "--show-current").strip() == "bullpen/coder"


def test_refusal_lists_a_few_files_and_counts_the_rest(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")
    for n in range(8):
        (info.path / f"f{n}.txt").write_text(str(n))

    with pytest.raises(UnsafeRemoval, match=r"f4\.txt and 3 more"):
        remove_worktree(git_repo, "coder")


def test_unmerged_commits_are_refused_even_without_the_directory(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")
    commit_in(info.path, "feature.py", "x = 1\n")
    commit_in(info.path, "feature.py", "x = 2\n")

    with pytest.raises(UnsafeRemoval, match=r"bullpen/coder has 2 commit\(s\) not in"):
        remove_worktree(git_repo, "coder")
    assert (info.path / "feature.py").read_text() == "x = 2\n"

    git(git_repo, "worktree", "remove", str(info.path))
    with pytest.raises(UnsafeRemoval, match="2 commit"):
        remove_worktree(git_repo, "coder")
    assert "bullpen/coder" in branches(git_repo)


def test_keeping_the_branch_allows_removing_a_worktree_with_commits(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")
    commit_in(info.path, "feature.py", "x = 1\n")
    tip = git(info.path, "rev-parse", "HEAD").strip()

    removed = remove_worktree(git_repo, "coder", delete_branch=False)

    assert (removed.worktree_removed, removed.branch_deleted) == (True, False)
    assert git(git_repo, "rev-parse", "bullpen/coder").strip() == tip


def test_merged_commits_do_not_block_removal(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")
    commit_in(info.path, "feature.py", "x = 1\n")
    git(git_repo, "merge", "-q", "--ff-only", "bullpen/coder")

    assert remove_worktree(git_repo, "coder").branch_deleted


def test_detached_commits_count_as_unmerged(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")
    git(info.path, "checkout", "-q", "--detach")
    commit_in(info.path, "orphan.py", "x = 1\n")

    with pytest.raises(UnsafeRemoval, match="1 commit"):
        remove_worktree(git_repo, "coder", delete_branch=False)


def test_force_removes_dirty_and_unmerged_work(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")
    commit_in(info.path, "feature.py", "x = 1\n")
    (info.path / "scratch.txt").write_text("draft\n")
    git(info.path, "worktree", "lock", str(info.path))  # even a locked one

    removed = remove_worktree(git_repo, "coder", force=True)

    assert (removed.worktree_removed, removed.branch_deleted) == (True, True)
    assert not info.path.exists()
    assert branches(git_repo) == ["main"]


def test_unknown_session_is_bad_input(git_repo: Path) -> None:
    with pytest.raises(BadWorktreeInput, match="no worktree or branch for session 'ghost'"):
        remove_worktree(git_repo, "ghost")


def test_a_branch_checked_out_elsewhere_is_not_deleted(git_repo: Path) -> None:
    create_worktree(git_repo, "coder")
    remove_worktree(git_repo, "coder", delete_branch=False)
    git(git_repo, "checkout", "-q", "bullpen/coder")

    with pytest.raises(WorktreeError, match="is checked out at"):
        remove_worktree(git_repo, "coder")
    assert "bullpen/coder" in branches(git_repo)


def test_other_branches_are_never_deleted(git_repo: Path) -> None:
    git(git_repo, "branch", "pr-1")
    git(git_repo, "branch", "hermes/hermes-0badc0de")
    create_worktree(git_repo, "pr-1")

    remove_worktree(git_repo, "pr-1", force=True)

    assert sorted(branches(git_repo)) == ["hermes/hermes-0badc0de", "main", "pr-1"]
