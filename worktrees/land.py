"""Landing a session's branch on the base branch: build, check, and only then move the base.

The result (a merge commit, a squash commit or the rebased commits) is built in a
temporary detached worktree; the project's check runs there. Only when both succeed
does the base branch move, by a compare-and-swap on its old commit: `git merge
--ff-only` in the main checkout when the base is checked out there (so its index and
files follow, and git refuses before touching anything if local changes or untracked
files are in the way), else `git update-ref`. Every refusal leaves the base branch, each
worktree and each index as they were; only the temporary worktree is made and removed.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from worktrees import land_scratch
from worktrees.errors import WorktreeError
from worktrees.gitcmd import first_line, git_out, run_git, split_z
from worktrees.repo import list_worktrees, main_root, resolve_commit
from worktrees.sync import _untracked_in_the_way

CHECK_TAIL = 5  # lines of a failing check's output kept for the refusal
_REPO_VARIABLES = {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX",
                   "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"}


class Strategy(StrEnum):
    """How a branch lands (`land.strategy` in bullpen.yaml)."""

    MERGE = "merge"  # one merge commit on the base (always, so the landing is visible)
    SQUASH = "squash"  # the branch's whole change as one commit
    REBASE = "rebase"  # the branch's commits replayed on the base, linear history


class LandRefused(WorktreeError):
    """The branch did not land (conflict, failing check, work in the way); nothing moved."""


@dataclass(frozen=True)
class Landing:
    """A branch that landed: the base branch moved from `old` to `new`."""

    branch: str
    base_branch: str
    old: str
    new: str
    head: str  # the landed branch's head at the time
    strategy: Strategy
    commits: int  # commits of the branch that were new to the base


def base_branch(repo_root: Path | str) -> str:
    """The branch checked out in the main checkout: where sessions land."""
    root = main_root(repo_root)
    name = run_git(root, "symbolic-ref", "--quiet", "--short", "HEAD", ok=(0, 1)).stdout.strip()
    if not name:
        raise LandRefused(f"the main checkout {root} is on a detached HEAD; check out the"
                          " branch to land on (git switch main)")
    return name


def _uncommitted(worktree: Path | str | None) -> str:
    """What a session left uncommitted, which no landing takes: said, with the fix."""
    from worktrees.status import worktree_status

    if worktree is None or not Path(worktree).is_dir():
        return ""
    changed = worktree_status(worktree).changed_files
    if not changed:
        return ""
    more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
    return (f"; its uncommitted {', '.join(changed[:3])}{more} lands only once committed"
            f" (git -C {worktree} commit)")


def land(repo_root: Path | str, branch: str, *, strategy: Strategy = Strategy.MERGE,
         check: str | None = None, label: str | None = None,
         worktree: Path | str | None = None,
         on_output: Callable[[str], None] = lambda line: None,
         vet: Callable[[str, str], None] | None = None) -> Landing:
    """Land `branch` on the main checkout's branch; raise LandRefused (nothing changed).

    `check` is a shell command run in the built result (its output lines go to
    `on_output` as they come); a non-zero exit refuses. `label` names the branch in
    commit messages (the session's name); `worktree`, where the branch is checked out,
    goes into a conflict's advice. `vet(old, new)` sees the base's commit and the built
    result's before the check runs, and may refuse (raise LandRefused).
    """
    root = main_root(repo_root)
    into = base_branch(root)
    old = resolve_commit(root, f"refs/heads/{into}")
    head = resolve_commit(root, f"refs/heads/{branch}")
    label = label or branch
    if _is_ancestor(root, head, old):
        raise LandRefused(f"{label}: nothing to land, {into} already holds {branch}"
                          f" ({head[:7]}){_uncommitted(worktree)}")
    commits = int(git_out(root, "rev-list", "--count", f"{old}..{head}"))
    in_main = _checked_out_in_main(root, into)
    if in_main:
        _refuse_if_main_in_the_way(root, old, head, into)
    else:
        _refuse_if_checked_out_elsewhere(root, into)
    scratch = land_scratch.make(label)
    work = scratch / land_scratch.RESULT
    try:
        run_git(root, "worktree", "add", "--quiet", "--detach", str(work), old)
        new = _build(work, _Names(branch, into, label, worktree), head, old, strategy, commits)
        if vet is not None:
            vet(old, new)
        if check:
            _run_check(work, check, label, on_output)
        _move_base(root, into, old, new, in_main)
    finally:
        land_scratch.remove(root, scratch)
    return Landing(branch, into, old, new, head, strategy, commits)


@dataclass(frozen=True)
class _Names:
    """What a landing's messages name: the branch, the base, the session, its worktree."""

    branch: str
    into: str
    label: str
    worktree: Path | str | None


def _build(work: Path, names: _Names, head: str, old: str, strategy: Strategy,
           commits: int) -> str:
    """Make the landed result in the scratch worktree and return its commit."""
    branch, label = names.branch, names.label
    if strategy == Strategy.REBASE:
        run_git(work, "checkout", "--quiet", "--detach", head)
        result = run_git(work, "rebase", "--quiet", old, ok=(0, 1, 128))
        if result.status != 0:
            files = _unmerged(work)
            run_git(work, "rebase", "--abort", ok=(0, 128))
            raise _conflict(names, files, result)
        return git_out(work, "rev-parse", "HEAD")
    if strategy == Strategy.SQUASH:
        result = run_git(work, "merge", "--squash", "--quiet", head, ok=(0, 1, 128))
        message = f"Land {label}: {commits} commit{'s' if commits != 1 else ''} squashed"
    else:
        result = run_git(work, "merge", "--no-ff", "--no-edit", "--quiet", "-m",
                         f"Land {label} ({branch})", head, ok=(0, 1, 128))
        message = None
    if result.status != 0:
        raise _conflict(names, _unmerged(work), result)
    if message is not None:
        log = git_out(work, "log", "--format=- %s", f"{old}..{head}")
        committed = run_git(work, "commit", "--quiet", "-m", message, "-m", log, ok=(0, 1, 128))
        if committed.status != 0:
            raise LandRefused(f"{label}: the squashed change is empty or could not be"
                              f" committed: {first_line(committed.stderr or committed.stdout)}")
    return git_out(work, "rev-parse", "HEAD")


def _conflict(names: _Names, files: list[str], result) -> LandRefused:
    label, into = names.label, names.into
    if files:
        shown = ", ".join(files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
        # `bullpen sync` merges the other way (a session's work into yours): name git's own.
        where = (f"git -C {names.worktree} merge {into}" if names.worktree
                 else f"git merge {into} where {names.branch} is checked out")
        return LandRefused(f"{label} conflicts with {into} in {shown}; nothing landed —"
                           f" merge {into} into {names.branch} and resolve there ({where}),"
                           " then land again")
    return LandRefused(f"{label} could not be merged into {into}:"
                       f" {first_line(result.stderr or result.stdout)}")


def _unmerged(work: Path) -> list[str]:
    return split_z(run_git(work, "diff", "--name-only", "--diff-filter=U", "-z").stdout)


def _run_check(work: Path, check: str, label: str, on_output: Callable[[str], None]) -> None:
    """Run the check in the built result, streaming its lines; refuse on failure."""
    # A git hook's GIT_DIR or GIT_INDEX_FILE would point the check's own git elsewhere.
    env = {key: value for key, value in os.environ.items() if key not in _REPO_VARIABLES}
    tail: list[str] = []
    with subprocess.Popen(check, shell=True, cwd=work, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace") as process:
        assert process.stdout is not None
        for raw in process.stdout:
            line = raw.rstrip("\n")
            on_output(line)
            if line.strip():
                tail = [*tail, line.strip()][-CHECK_TAIL:]
    if process.returncode != 0:
        last = tail[-1] if tail else "no output"
        raise LandRefused(f"{label}: the check failed (exit {process.returncode}): {last};"
                          " nothing landed")


def _move_base(root: Path, into: str, old: str, new: str, in_main: bool) -> None:
    """Move the base from `old` to `new`, refusing if it moved meanwhile."""
    if in_main:
        if resolve_commit(root, "HEAD") != old:
            raise LandRefused(f"{into} moved while landing; land again")
        result = run_git(root, "merge", "--ff-only", "--quiet", new, ok=(0, 1, 128))
        if result.status != 0:
            raise LandRefused(f"the main checkout could not take the landing:"
                              f" {first_line(result.stderr or result.stdout)}; nothing landed")
        return
    result = run_git(root, "update-ref", "-m", "bullpen land", f"refs/heads/{into}", new, old,
                     ok=(0, 1, 128))
    if result.status != 0:
        raise LandRefused(f"{into} moved while landing; land again")


def _checked_out_in_main(root: Path, into: str) -> bool:
    current = run_git(root, "symbolic-ref", "--quiet", "--short", "HEAD", ok=(0, 1))
    return current.stdout.strip() == into


def _refuse_if_checked_out_elsewhere(root: Path, into: str) -> None:
    for worktree in list_worktrees(root)[1:]:
        if worktree.branch == into:
            raise LandRefused(f"{into} is checked out in {worktree.path}; land from there"
                              " or switch it to another branch")


def _refuse_if_main_in_the_way(root: Path, old: str, head: str, into: str) -> None:
    """Refuse now (before building or checking) if the main checkout has uncommitted
    changes to files the landing touches, or untracked files it would overwrite."""
    base = git_out(root, "merge-base", old, head)
    touched = set(split_z(run_git(root, "diff", "--name-only", "--no-renames", "-z",
                                  base, head).stdout))
    dirty = set(split_z(run_git(root, "diff", "--name-only", "-z", "HEAD").stdout))
    blocked = sorted(touched & dirty)
    if blocked:
        raise LandRefused(f"the main checkout has uncommitted changes to {', '.join(blocked[:5])}"
                          f" which landing on {into} would change; commit or stash them first")
    at_risk = _untracked_in_the_way(root, head)
    if at_risk:
        raise LandRefused(f"the main checkout has untracked {', '.join(at_risk[:5])} which"
                          f" landing on {into} would overwrite; move them aside first")


def _is_ancestor(cwd: Path, ancestor: str, descendant: str) -> bool:
    return run_git(cwd, "merge-base", "--is-ancestor", ancestor, descendant,
                   ok=(0, 1)).status == 0
