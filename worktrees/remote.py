"""A session's branch on a shared remote, so machines without its worktree can see it.

On commit, a session's branch is pushed to the room's `push:` remote (its own name, so
a force push rewrites nothing of anyone else's); another machine fetches it before it
shows a diff of that session or merges it.
"""

from __future__ import annotations

from pathlib import Path

from worktrees.errors import WorktreeError
from worktrees.gitcmd import run_git


def push_branch(repo_root: Path | str, remote: str, branch: str) -> None:
    """Push `branch` to `remote` under the same name (WorktreeError when git fails)."""
    run_git(repo_root, "push", "--quiet", "--force", remote,
            f"refs/heads/{branch}:refs/heads/{branch}")


def fetched_ref(remote: str, branch: str) -> str:
    return f"refs/remotes/{remote}/{branch}"


def fetch_branch(repo_root: Path | str, remote: str, branch: str) -> str | None:
    """Fetch `branch` from `remote`; its local ref, or None when the remote lacks it."""
    try:
        run_git(repo_root, "fetch", "--quiet", remote,
                f"+refs/heads/{branch}:{fetched_ref(remote, branch)}")
    except WorktreeError:
        return None
    return fetched_ref(remote, branch)


def branch_diff(repo_root: Path | str, base: str | None, ref: str,
                paths: tuple[str, ...] | list[str] = ()) -> str:
    """The committed change of a fetched branch since `base` (its merge base with `ref`
    when no base is known)."""
    start = base or run_git(repo_root, "merge-base", "HEAD", ref).stdout.strip()
    return run_git(repo_root, "diff", "--no-color", "--no-ext-diff", start, ref, "--",
                   *paths).stdout
