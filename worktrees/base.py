"""The base commit a session's branch started from, kept in git config so it survives restarts."""

from __future__ import annotations

from pathlib import Path

from worktrees.gitcmd import run_git


def _key(branch: str) -> str:
    # Lives in the branch's own config section, so `git branch -D` drops it with the branch.
    return f"branch.{branch}.bullpen-base"


def record_base(cwd: Path | str, branch: str, sha: str) -> None:
    """Remember `sha` as the commit `branch` was created from."""
    run_git(cwd, "config", "--local", _key(branch), sha)


def recorded_base(cwd: Path | str, branch: str) -> str | None:
    """The base commit recorded for `branch`, or None if there is none."""
    result = run_git(cwd, "config", "--local", "--get", _key(branch), ok=(0, 1))
    return result.stdout.strip() or None
