"""Removal and sync never lose work git does not show: precious ignored files, hidden
edits, stashes; and a merge never overwrites an untracked or ignored file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import commit_file, git
from worktrees import UnsafeRemoval, create_worktree, remove_worktree, sync

SECRET = "API_KEY=sk-live-1234\n"


def ignore(repo: Path, *patterns: str) -> None:
    commit_file(repo, ".gitignore", "".join(f"{p}\n" for p in patterns), "ignore")


def refused(repo: Path, name: str, needle: str) -> str:
    with pytest.raises(UnsafeRemoval) as caught:
        remove_worktree(repo, name)
    message = str(caught.value)
    assert needle in message and "remove with --force" in message and "\n" not in message
    return message


@pytest.mark.parametrize("rel", [".env", ".env.local", "config/secrets.json"])
def test_precious_ignored_files_keep_the_worktree(git_repo: Path, rel: str) -> None:
    ignore(git_repo, ".env*", "config/secrets.json")
    path = create_worktree(git_repo, "a").path
    (path / rel).parent.mkdir(parents=True, exist_ok=True)
    (path / rel).write_text(SECRET)
    refused(git_repo, "a", f"ignored files that are not build output ({rel})")
    assert (path / rel).read_text() == SECRET
    assert remove_worktree(git_repo, "a", force=True).worktree_removed


def test_regenerable_build_output_does_not_keep_it(git_repo: Path) -> None:
    ignore(git_repo, "__pycache__/", "node_modules/", "*.pyc", "dist/")
    path = create_worktree(git_repo, "a").path
    for rel in ("src/__pycache__/app.cpython-312.pyc", "node_modules/x/index.js",
                "dist/app.tar.gz", "src/stale.pyc"):
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text("built")
    assert remove_worktree(git_repo, "a").worktree_removed
    assert not path.exists()


def test_worktreeinclude_marks_ignored_files_precious(git_repo: Path) -> None:
    ignore(git_repo, "build/")
    commit_file(git_repo, ".worktreeinclude", "build/local-settings.ini\n", "include")
    path = create_worktree(git_repo, "a").path
    (path / "build").mkdir()
    (path / "build" / "local-settings.ini").write_text("token=1\n")
    refused(git_repo, "a", "ignored files that are not build output (build/")


@pytest.mark.parametrize("flag", ["--skip-worktree", "--assume-unchanged"])
def test_edits_hidden_from_git_status_keep_the_worktree(git_repo: Path, flag: str) -> None:
    path = create_worktree(git_repo, "a").path
    git(path, "update-index", flag, "src/app.py")
    (path / "src" / "app.py").write_text("def handler():\n    return 'local tweak'\n")
    assert git(path, "status", "--porcelain") == ""  # invisible to status
    refused(git_repo, "a", "hidden by skip-worktree or assume-unchanged (src/app.py)")
    assert "local tweak" in (path / "src" / "app.py").read_text()


def test_a_flag_without_an_edit_does_not_keep_it(git_repo: Path) -> None:
    path = create_worktree(git_repo, "a").path
    git(path, "update-index", "--skip-worktree", "src/app.py")
    assert remove_worktree(git_repo, "a").worktree_removed


def test_a_stash_on_the_branch_keeps_it(git_repo: Path) -> None:
    path = create_worktree(git_repo, "a").path
    (path / "src" / "app.py").write_text("stashed work\n")
    git(path, "stash", "push", "-m", "half done")
    refused(git_repo, "a", "bullpen/a has 1 stash(es) (stash@{0}); apply or drop them")
    create_worktree(git_repo, "b")
    assert remove_worktree(git_repo, "b").branch_deleted  # another branch's stash: no matter


def test_sync_never_overwrites_an_ignored_file(git_repo: Path) -> None:
    ignore(git_repo, ".env")
    a, b = create_worktree(git_repo, "a").path, create_worktree(git_repo, "b").path
    (a / ".env").write_text(SECRET)
    git(b, "add", "-f", ".env") if (b / ".env").write_text("API_KEY=other\n") else None
    git(b, "commit", "-qm", "b commits its .env")
    before = git(a, "rev-parse", "HEAD")

    report = sync(a, "bullpen/b")

    assert not report.merged and report.blocked_by == (".env",)
    assert "untracked or ignored and would be overwritten" in report.message
    assert (a / ".env").read_text() == SECRET
    assert git(a, "rev-parse", "HEAD") == before


def test_sync_reports_an_untracked_file_in_the_way(git_repo: Path) -> None:
    a, b = create_worktree(git_repo, "a").path, create_worktree(git_repo, "b").path
    (a / "notes.md").write_text("mine\n")
    commit_file(b, "notes.md", "theirs\n", "notes")
    report = sync(a, "bullpen/b")
    assert not report.merged and report.blocked_by == ("notes.md",)
    assert (a / "notes.md").read_text() == "mine\n"
