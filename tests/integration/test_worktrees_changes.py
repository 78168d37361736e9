"""Session diffs and commit summaries on real repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import commit_file, git
from worktrees import (
    BadWorktreeInput,
    branch_head,
    commit_info,
    commits_between,
    create_worktree,
    session_diff,
)


def test_diff_holds_committed_uncommitted_and_untracked_work(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")
    commit_file(info.path, "feature.py", "x = 1\n", "feature")
    (info.path / "src" / "app.py").write_text("def handler():\n    return 'v2'\n")
    (info.path / "notes").mkdir()
    (info.path / "notes" / "todo.md").write_text("- ship it\n")

    diff = session_diff(info.path, info.base_commit)

    assert "diff --git a/feature.py b/feature.py" in diff
    assert "+x = 1" in diff
    assert "-    return 'v1'\n+    return 'v2'" in diff
    assert "diff --git a/notes/todo.md b/notes/todo.md\nnew file mode 100644" in diff
    assert "--- /dev/null\n+++ b/notes/todo.md" in diff
    assert "+- ship it" in diff


def test_diff_defaults_to_the_recorded_base_and_honours_paths(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")
    commit_file(info.path, "a.py", "a = 1\n", "a")
    (info.path / "b.py").write_text("b = 1\n")
    commit_file(git_repo, "README.md", "# main moved\n", "main moves")

    diff = session_diff(info.path)
    assert "a/a.py" in diff and "b/b.py" in diff
    assert "README.md" not in diff  # the base is where the branch started, not main's tip

    only_b = session_diff(info.path, paths=["b.py"])
    assert "b/b.py" in only_b and "a.py" not in only_b


def test_clean_worktree_has_an_empty_diff(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")
    assert session_diff(info.path, info.base_commit) == ""


def test_diff_against_unknown_base_is_bad_input(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")
    with pytest.raises(BadWorktreeInput, match="unknown ref 'nope'"):
        session_diff(info.path, "nope")


def test_commit_info_summarises_one_commit(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")
    (info.path / "src" / "app.py").write_text("v2\n")
    (info.path / "with space.txt").write_text("s\n")
    git(info.path, "add", "-A")
    git(info.path, "commit", "-qm", "Return v2\n\nLonger explanation here.")
    sha = git(info.path, "rev-parse", "HEAD").strip()

    commit = commit_info(git_repo, sha[:10])

    assert commit.sha == sha
    assert sha.startswith(commit.short)
    assert commit.message == "Return v2"
    assert commit.author == "Test Author"
    assert commit.files == ("src/app.py", "with space.txt")


def test_commit_info_of_the_root_commit_and_a_merge(git_repo: Path) -> None:
    root = commit_info(git_repo, "HEAD")
    assert root.files == ("README.md", "src/app.py")
    assert root.message == "initial commit"

    git(git_repo, "checkout", "-q", "-b", "side")
    commit_file(git_repo, "side.txt", "s\n", "side work")
    git(git_repo, "checkout", "-q", "main")
    commit_file(git_repo, "main.txt", "m\n", "main work")
    git(git_repo, "merge", "-q", "--no-edit", "side")

    merge = commit_info(git_repo, "HEAD")
    assert merge.message == "Merge branch 'side'"
    assert merge.files == ("side.txt",)  # what the merge brought in, against the first parent


def test_commit_info_of_an_unknown_sha(git_repo: Path) -> None:
    with pytest.raises(BadWorktreeInput):
        commit_info(git_repo, "0" * 40)


def test_commits_between_oldest_first(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")
    old = branch_head(git_repo, "bullpen/coder")
    assert old == info.base_commit
    first = commit_file(info.path, "one.py", "1\n", "one")
    second = commit_file(info.path, "two.py", "2\n", "two")

    new = branch_head(git_repo, "bullpen/coder")
    assert new == second

    commits = commits_between(git_repo, old, new)
    assert [c.sha for c in commits] == [first, second]
    assert [c.message for c in commits] == ["one", "two"]
    assert [c.files for c in commits] == [("one.py",), ("two.py",)]
    assert commits_between(git_repo, new, new) == []


def test_branch_head_of_a_missing_branch(git_repo: Path) -> None:
    assert branch_head(git_repo, "bullpen/ghost") is None
    assert branch_head(git_repo, "main") == git(git_repo, "rev-parse", "HEAD").strip()
