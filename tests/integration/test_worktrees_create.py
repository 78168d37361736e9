"""Creating session worktrees on real git repositories."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import git
from worktrees import (
    BadWorktreeInput,
    WorktreeError,
    create_worktree,
    main_root,
    open_repo,
    remove_worktree,
    worktree_path,
)


def head(cwd: Path, ref: str = "HEAD") -> str:
    return git(cwd, "rev-parse", ref).strip()


def test_create_puts_a_new_branch_in_the_room_directory(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")

    assert info.name == "coder"
    assert info.branch == "bullpen/coder"
    assert info.path == git_repo.resolve() / ".bullpen" / "worktrees" / "coder"
    assert info.base_commit == head(git_repo)
    assert git(info.path, "branch", "--show-current").strip() == "bullpen/coder"
    assert (info.path / "src" / "app.py").read_text() == "def handler():\n    return 'v1'\n"
    # The base survives in git config, and the main checkout stays clean.
    assert git(git_repo, "config", "branch.bullpen/coder.bullpen-base").strip() == head(git_repo)
    assert git(git_repo, "status", "--porcelain") == ""


def test_create_from_a_ref(git_repo: Path) -> None:
    first = head(git_repo)
    (git_repo / "README.md").write_text("# second\n")
    git(git_repo, "commit", "-qam", "second")
    git(git_repo, "tag", "v1", first)

    info = create_worktree(git_repo, "old", base="v1")

    assert info.base_commit == first
    assert head(info.path) == first
    assert (info.path / "README.md").read_text() == "# demo repo\n"


def test_unknown_base_ref_is_bad_input_and_creates_nothing(git_repo: Path) -> None:
    with pytest.raises(BadWorktreeInput, match="unknown ref 'nope'") as caught:
        create_worktree(git_repo, "coder", base="nope")
    assert caught.value.exit_status == 2
    assert git(git_repo, "branch", "--list", "bullpen/*") == ""
    assert not worktree_path(git_repo, "coder").exists()


def test_option_like_ref_is_refused(git_repo: Path) -> None:
    with pytest.raises(BadWorktreeInput, match="unknown ref"):
        create_worktree(git_repo, "coder", base="--all")


def test_create_is_idempotent(git_repo: Path) -> None:
    first = create_worktree(git_repo, "coder")
    (first.path / "work.txt").write_text("in progress\n")

    again = create_worktree(git_repo, "coder")

    assert again == first
    assert (first.path / "work.txt").read_text() == "in progress\n"


def test_existing_branch_is_reused_after_its_directory_vanished(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")
    (info.path / "feature.py").write_text("x = 1\n")
    git(info.path, "add", "feature.py")
    git(info.path, "commit", "-qm", "feature")
    tip = head(info.path)
    git(git_repo, "worktree", "remove", "--force", str(info.path))  # like a cleaned tmp dir

    again = create_worktree(git_repo, "coder", base="HEAD~0")

    assert again.base_commit == info.base_commit  # the recorded base, not the new request
    assert head(again.path) == tip
    assert (again.path / "feature.py").read_text() == "x = 1\n"


def test_stale_registration_of_a_deleted_directory_is_pruned(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")
    for root, dirs, files in os.walk(info.path, topdown=False):  # rm -rf, git not told
        for name in files:
            Path(root, name).unlink()
        for name in dirs:
            Path(root, name).rmdir()
    info.path.rmdir()

    again = create_worktree(git_repo, "coder")

    assert again.path.is_dir()
    assert git(again.path, "branch", "--show-current").strip() == "bullpen/coder"


def test_reused_branch_without_recorded_base_falls_back_to_the_fork_point(git_repo: Path) -> None:
    fork = head(git_repo)
    git(git_repo, "branch", "bullpen/manual")
    (git_repo / "README.md").write_text("# moved on\n")
    git(git_repo, "commit", "-qam", "main moves on")

    info = create_worktree(git_repo, "manual")

    assert info.base_commit == fork


def test_a_foreign_directory_in_the_way_is_refused(git_repo: Path) -> None:
    path = worktree_path(git_repo, "coder")
    path.mkdir(parents=True)
    (path / "keep.txt").write_text("mine\n")

    with pytest.raises(BadWorktreeInput, match="not a worktree of bullpen/coder"):
        create_worktree(git_repo, "coder")
    assert (path / "keep.txt").read_text() == "mine\n"


def test_branch_checked_out_elsewhere_is_a_clear_error(git_repo: Path) -> None:
    git(git_repo, "branch", "bullpen/coder")
    git(git_repo, "worktree", "add", "-q", str(git_repo.parent / "elsewhere"), "bullpen/coder")

    with pytest.raises(WorktreeError, match="could not create the worktree"):
        create_worktree(git_repo, "coder")


def test_bad_session_name_is_refused(git_repo: Path) -> None:
    with pytest.raises(BadWorktreeInput, match="invalid session name"):
        create_worktree(git_repo, "../escape")


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(BadWorktreeInput, match="is not a git repository; run git init"):
        create_worktree(tmp_path, "coder")
    with pytest.raises(BadWorktreeInput, match="is not a git repository"):
        open_repo(tmp_path)


def test_repository_without_commits(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    with pytest.raises(BadWorktreeInput, match="has no commit yet; make a first commit"):
        create_worktree(tmp_path, "coder")
    with pytest.raises(BadWorktreeInput, match="has no commit yet"):
        open_repo(tmp_path)


def test_worktreeinclude_copies_only_ignored_matching_files(git_repo: Path) -> None:
    (git_repo / ".gitignore").write_text(".env\nsecrets/\n*.log\n")
    (git_repo / ".worktreeinclude").write_text(
        "# local setup the agents need\n.env\nsecrets/\nnotes.txt\n\nconfig/local.toml\n"
    )
    git(git_repo, "add", ".gitignore", ".worktreeinclude")
    git(git_repo, "commit", "-qm", "ignore rules")
    (git_repo / ".env").write_text("TOKEN=abc\n")
    (git_repo / "secrets").mkdir()
    (git_repo / "secrets" / "key.pem").write_text("KEY\n")
    (git_repo / "debug.log").write_text("ignored but not included\n")
    (git_repo / "notes.txt").write_text("included but not ignored\n")
    (git_repo / "config").mkdir()
    (git_repo / "config" / "local.toml").write_text("neither ignored\n")

    info = create_worktree(git_repo, "coder")

    assert (info.path / ".env").read_text() == "TOKEN=abc\n"
    assert (info.path / "secrets" / "key.pem").read_text() == "KEY\n"
    assert not (info.path / "debug.log").exists()
    assert not (info.path / "notes.txt").exists()
    assert not (info.path / "config" / "local.toml").exists()
    assert git(info.path, "status", "--porcelain") == ""


def test_main_root_from_inside_a_linked_worktree(git_repo: Path) -> None:
    info = create_worktree(git_repo, "coder")
    assert (info.path / "src").is_dir()

    assert main_root(info.path / "src") == git_repo.resolve()
    repo = open_repo(info.path / "src")
    try:
        assert Path(repo.working_tree_dir or "") == git_repo.resolve()
    finally:
        repo.close()
    # A session started inside its worktree gets the same worktree back.
    assert create_worktree(info.path, "coder") == info
    nested = create_worktree(info.path / "src", "reviewer")
    assert nested.path == git_repo.resolve() / ".bullpen" / "worktrees" / "reviewer"


def test_sessions_created_at_once_all_get_their_worktree(git_repo: Path) -> None:
    # Concurrent `git worktree add`s trip over each other unless bullpen serialises them.
    names = [f"s{n}" for n in range(8)]
    with ThreadPoolExecutor(len(names)) as pool:
        infos = list(pool.map(lambda name: create_worktree(git_repo, name), names))

    assert [info.branch for info in infos] == [f"bullpen/{name}" for name in names]
    for info in infos:
        assert git(git_repo, "config", f"branch.{info.branch}.bullpen-base").strip() == \
            info.base_commit
    with ThreadPoolExecutor(len(names)) as pool:
        list(pool.map(lambda name: remove_worktree(git_repo, name), names))
    assert git(git_repo, "branch", "--list", "bullpen/*") == ""
    assert git(git_repo, "status", "--porcelain") == ""


def test_bare_repository_is_refused(tmp_path: Path, git_repo: Path) -> None:
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(git_repo), str(bare))
    with pytest.raises(BadWorktreeInput, match="bare repository"):
        main_root(bare)
