"""Worktree status on real repositories: dirty files, ahead/behind, merged."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import commit_file, git
from worktrees import create_worktree, worktree_status


def test_fresh_worktree_is_clean_and_merged(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")

    status = worktree_status(info.path)

    assert status.path == info.path
    assert status.branch == "bullpen/coder"
    assert status.head == info.base_commit
    assert (status.dirty, status.changed_files) == (False, ())
    assert (status.ahead, status.behind, status.merged) == (0, 0, True)


def test_modified_staged_untracked_and_renamed_files_are_listed(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")
    (info.path / "src" / "app.py").write_text("changed\n")  # modified, unstaged
    (info.path / "staged.txt").write_text("staged\n")
    git(info.path, "add", "staged.txt")
    (info.path / "deep" / "dir").mkdir(parents=True)
    (info.path / "deep" / "dir" / "new file.txt").write_text("untracked\n")
    git(info.path, "mv", "README.md", "DOC.md")  # a rename entry carries the old name too

    status = worktree_status(info.path)

    assert status.dirty
    assert sorted(status.changed_files) == [
        "DOC.md", "deep/dir/new file.txt", "src/app.py", "staged.txt",
    ]


def test_ignored_files_do_not_make_a_worktree_dirty(git_repo: Path) -> None:
    commit_file(git_repo, ".gitignore", "*.log\n", "ignore logs")
    info = create_worktree(git_repo, "coder")
    (info.path / "run.log").write_text("noise\n")

    assert not worktree_status(info.path).dirty


def test_ahead_behind_and_merged_against_the_main_checkout(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")
    commit_file(info.path, "feature.py", "x = 1\n", "feature")
    commit_file(info.path, "feature.py", "x = 2\n", "feature again")
    commit_file(git_repo, "README.md", "# main moved\n", "main moves")

    status = worktree_status(info.path)
    assert (status.ahead, status.behind, status.merged) == (2, 1, False)

    git(git_repo, "merge", "-q", "--no-edit", "bullpen/coder")
    status = worktree_status(info.path)
    assert (status.ahead, status.behind, status.merged) == (0, 2, True)


def test_counts_against_an_explicit_base(git_repo: Path) -> None:
    base = git(git_repo, "rev-parse", "HEAD").strip()
    commit_file(git_repo, "README.md", "# later\n", "main moves")
    info = create_worktree(git_repo, "coder", base=base)
    commit_file(info.path, "feature.py", "x = 1\n", "feature")

    status = worktree_status(info.path, base=base)

    # Against its base the branch is 1 ahead, 0 behind; main has not merged it.
    assert (status.ahead, status.behind, status.merged) == (1, 0, False)
    assert worktree_status(info.path).behind == 1


def test_status_of_the_main_checkout_and_a_detached_worktree(git_repo: Path) -> None:
    status = worktree_status(git_repo)
    assert (status.branch, status.dirty, status.merged) == ("main", False, True)

    info = create_worktree(git_repo, "coder")
    git(info.path, "checkout", "-q", "--detach")
    assert worktree_status(info.path).branch is None


def test_reading_the_status_never_writes_the_worktrees_index(git_repo: Path) -> None:
    """`bullpen ls` and the dashboard read every session's status: that must not take the
    session's index.lock from under its agent's git, nor look to the change watcher like
    git at work there. A file touched but unchanged is what git would refresh."""
    info = create_worktree(git_repo, "coder")
    index = Path(git(info.path, "rev-parse", "--path-format=absolute",
                     "--git-path", "index").strip())
    before = index.stat().st_mtime_ns
    os.utime(info.path / "README.md", ns=(before + 10**9, before + 10**9))

    assert worktree_status(info.path).changed_files == ()
    assert index.stat().st_mtime_ns == before
