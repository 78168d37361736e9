"""Many worktrees at once (`up` of a big plan) are what `git worktree add` makes, file by
file; one whose making was cut short is finished by the next creation; anything unusual
goes through `git worktree add` itself."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tests.conftest import git
from worktrees import create_worktree, remove_worktree, worktree_path
from worktrees.create import INITIALIZING
from worktrees.create_many import create_worktrees

_SHA_TIME = re.compile(r" \d{9,} [+-]\d{4}")


def admin_files(repo: Path, name: str) -> dict[str, str]:
    """The admin directory of a worktree, times blanked, and its `.git` file."""
    admin = repo / ".git" / "worktrees" / name
    files = {str(p.relative_to(admin)): _SHA_TIME.sub(" T", p.read_text())
             for p in sorted(admin.rglob("*")) if p.is_file() and p.name != "index"}
    files[".git"] = (worktree_path(repo, name) / ".git").read_text()
    return files


def state(repo: Path, name: str) -> dict[str, str]:
    path = worktree_path(repo, name)
    return {
        "files": git(path, "ls-files", "--stage"),
        "status": git(path, "status", "--porcelain", "--ignored"),
        "branch": git(path, "branch", "--show-current"),
        "base": git(repo, "config", f"branch.bullpen/{name}.bullpen-base"),
        "reflog": _SHA_TIME.sub(" T", (repo / ".git" / "logs" / "refs" / "heads" / "bullpen"
                                       / name).read_text()),
        "listed": "\n".join(line for line in git(repo, "worktree", "list", "--porcelain")
                            .split("\n\n") if line.endswith(f"/{name}")
                            or f"/{name}\n" in line),
    }


def test_many_at_once_are_what_git_worktree_add_makes(git_repo: Path, tmp_path: Path) -> None:
    twin = tmp_path / "twin"
    shutil.copytree(git_repo, twin)
    ours = create_worktrees(git_repo, [("a", None), ("b", None)])
    theirs = [create_worktree(twin, "a"), create_worktree(twin, "b")]
    assert [(i.name, i.branch, i.base_commit) for i in ours] == [
        (i.name, i.branch, i.base_commit) for i in theirs]
    for name in ("a", "b"):
        mine, git_made = state(git_repo, name), state(twin, name)
        assert mine["listed"].replace(str(git_repo.resolve()), "R") == \
            git_made["listed"].replace(str(twin.resolve()), "R")
        assert {k: v for k, v in mine.items() if k != "listed"} == \
            {k: v for k, v in git_made.items() if k != "listed"}
        assert {k: v.replace(str(git_repo.resolve()), "R")
                for k, v in admin_files(git_repo, name).items()} == \
            {k: v.replace(str(twin.resolve()), "R") for k, v in admin_files(twin, name).items()}
    assert git(git_repo, "status", "--porcelain") == ""
    # git itself takes them back as its own.
    assert remove_worktree(git_repo, "a", force=False, delete_branch=True).branch_deleted


def test_a_worktree_cut_short_is_checked_out_by_the_next_creation(git_repo: Path) -> None:
    [info] = create_worktrees(git_repo, [("c", None)])
    admin = git_repo / ".git" / "worktrees" / "c"
    (admin / "locked").write_text(INITIALIZING)  # as a kill during its checkout leaves it
    (info.path / "README.md").unlink()
    (admin / "index").unlink()
    again = create_worktree(git_repo, "c")
    assert again.path == info.path
    assert (info.path / "README.md").read_text() == "# demo repo\n"
    assert not (admin / "locked").exists()
    assert git(info.path, "status", "--porcelain") == ""


def test_a_post_checkout_hook_takes_git_worktree_add_which_runs_it(git_repo: Path) -> None:
    hook = git_repo / ".git" / "hooks" / "post-checkout"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\necho ran > hook-ran\n")
    hook.chmod(0o755)
    [info] = create_worktrees(git_repo, [("d", None)])
    assert (info.path / "hook-ran").exists()


def test_an_existing_branch_is_checked_out_again(git_repo: Path) -> None:
    earlier = create_worktree(git_repo, "e")
    (earlier.path / "work.md").write_text("e's work\n")
    git(earlier.path, "add", "work.md")
    git(earlier.path, "commit", "-qm", "work")
    remove_worktree(git_repo, "e", force=True, delete_branch=False)
    ready = []
    [info] = create_worktrees(git_repo, [("e", None)], progress=ready.append)
    assert (info.path / "work.md").read_text() == "e's work\n"
    assert ready == [1]
