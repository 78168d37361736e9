"""The base commit a session's branch started from, kept in git config so it survives restarts."""

from __future__ import annotations

import os
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


def record_bases(root: Path, bases: list[tuple[str, str]]) -> None:
    """`record_base` for many new branches in one write of `.git/config`, taken under
    git's own `config.lock` as `git config` takes it; a branch whose section exists
    already (left by an earlier branch of that name) is written by `git config`."""
    config = root / ".git" / "config"
    lock = config.with_name("config.lock")
    for attempt in range(_LOCK_RETRIES):
        try:
            descriptor = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:
            time.sleep(0.002 * (attempt + 1))  # another git is writing the config
    else:
        raise WorktreeError("could not record the sessions' bases: .git/config.lock stays")
    try:
        text = config.read_text()
        alone = [(b, sha) for b, sha in bases if f'[branch "{b}"]' not in text]
        added = "".join(f'[branch "{b}"]\n\tbullpen-base = {sha}\n' for b, sha in alone)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(text + ("" if text.endswith("\n") or not text else "\n") + added)
        os.chmod(lock, config.stat().st_mode & 0o777)
        os.replace(lock, config)
    except BaseException:
        lock.unlink(missing_ok=True)
        raise
    for branch, sha in bases:
        if (branch, sha) not in alone:
            record_base(root, branch, sha)
