"""The base commit a session's branch started from, kept in git config so it survives restarts."""

from __future__ import annotations

import time
from pathlib import Path

from worktrees.errors import WorktreeError
from worktrees.gitcmd import GitResult, first_line, run_git

_LOCK_RETRIES = 50  # sessions spawned together write the config at once; git does not wait


def _key(branch: str) -> str:
    # Lives in the branch's own config section, so deleting the section drops it too.
    return f"branch.{branch}.bullpen-base"


def record_base(cwd: Path | str, branch: str, sha: str) -> None:
    """Remember `sha` as the commit `branch` was created from."""
    result = _write_config(cwd, _key(branch), sha)
    if result.status != 0:
        raise WorktreeError(f"could not record the base of {branch}: {first_line(result.stderr)}")


def forget_branch_config(cwd: Path | str, branch: str) -> None:
    """Drop `branch`'s config section (its recorded base, upstream...) if it has one."""
    _write_config(cwd, "--remove-section", f"branch.{branch}")


def recorded_base(cwd: Path | str, branch: str) -> str | None:
    """The base commit recorded for `branch`, or None if there is none."""
    result = run_git(cwd, "config", "--local", "--get", _key(branch), ok=(0, 1))
    return result.stdout.strip() or None


def _write_config(cwd: Path | str, *args: str) -> GitResult:
    """`git config --local ARGS`, retried while another process holds config.lock."""
    for attempt in range(_LOCK_RETRIES):
        result = run_git(cwd, "config", "--local", *args, ok=(0, 1, 3, 4, 5, 128, 255))
        if result.status == 0 or "could not lock config file" not in result.stderr:
            return result
        time.sleep(0.002 * (attempt + 1))  # a config write takes about a millisecond
    return result
