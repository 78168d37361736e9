"""Merging another session's committed work into a worktree without losing uncommitted work."""

from __future__ import annotations

import os
from pathlib import Path

from worktrees.errors import WorktreeError
from worktrees.gitcmd import first_line, run_git, split_z
from worktrees.models import SyncReport
from worktrees.naming import check_branch_allowed
from worktrees.repo import resolve_commit

_OVERWRITE = "would be overwritten by merge"
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # for branches with no common base


def sync(worktree_path: Path | str, from_branch: str, keep_conflicts: bool = False) -> SyncReport:
    """Merge `from_branch` (any ref) into the branch checked out at `worktree_path`.

    Uncommitted work is never lost: git refuses a merge that would touch a file with local
    changes, and that refusal comes back as a report naming the files (`blocked_by`); so
    does a file the merge would write that exists here untracked or ignored (git would
    overwrite an ignored one without a word). On
    conflicts the merge is aborted (the tree is as before) and the conflicting files are
    reported; with `keep_conflicts=True` they are left in place for the user to resolve.
    """
    cwd = Path(worktree_path)
    if _merging(cwd):
        raise WorktreeError(f"a merge is already in progress in {cwd}; "
                            "resolve and commit it, or run git merge --abort")
    current = run_git(cwd, "symbolic-ref", "--quiet", "--short", "HEAD", ok=(0, 1)).stdout.strip()
    if current:
        check_branch_allowed(current)
    source = resolve_commit(cwd, from_branch)
    if _is_ancestor(cwd, source, "HEAD"):
        return SyncReport(False, False, (), f"already up to date with {from_branch}")
    fast_forward = _is_ancestor(cwd, "HEAD", source)
    at_risk = _untracked_in_the_way(cwd, source)
    if at_risk:
        return SyncReport(False, False, (), (
            f"did not merge {from_branch}: it brings {', '.join(at_risk[:5])}, which exist"
            " here untracked or ignored and would be overwritten; move them aside, then sync"
            " again"), blocked_by=tuple(at_risk))

    result = run_git(cwd, "merge", "--no-edit", "--no-stat", from_branch,
                     ok=(0, 1, 2, 128))
    if result.status == 0:
        how = "fast-forward" if fast_forward else "merge commit"
        return SyncReport(True, fast_forward, (), f"merged {from_branch} ({how})")
    if _merging(cwd):
        return _conflicted(cwd, from_branch, keep_conflicts)
    output = result.stdout + result.stderr
    if _OVERWRITE in output:
        blocked = _blocked_files(output)
        return SyncReport(False, False, (), (
            f"did not merge {from_branch}: uncommitted changes to {', '.join(blocked)} would be "
            "overwritten; commit or stash them, then sync again"), blocked_by=blocked)
    raise WorktreeError(f"could not merge {from_branch} in {cwd}: {first_line(result.stderr)}")


def _conflicted(cwd: Path, from_branch: str, keep: bool) -> SyncReport:
    conflicts = tuple(split_z(run_git(cwd, "diff", "--name-only", "--diff-filter=U", "-z").stdout))
    listed = ", ".join(conflicts) or "the index"
    if keep:
        return SyncReport(False, False, conflicts, (
            f"merging {from_branch} conflicts in {listed}; resolve them and commit, "
            "or run git merge --abort"))
    # Git refused to start if a touched file had local changes, so abort restores exactly
    # the pre-merge tree and leaves the untouched uncommitted work as it was.
    run_git(cwd, "merge", "--abort")
    return SyncReport(False, False, conflicts, (
        f"did not merge {from_branch}: conflicts in {listed}; nothing changed, "
        "merge by hand, or run bullpen sync again with --keep-conflicts to resolve them"
        " in place"))


def _untracked_in_the_way(cwd: Path, source: str) -> list[str]:
    """Files the merge would write that exist here but are not tracked (untracked or
    ignored): git overwrites ignored ones silently — a session's .env, say."""
    base = run_git(cwd, "merge-base", "HEAD", source, ok=(0, 1)).stdout.strip()
    changed = split_z(run_git(cwd, "diff", "--name-only", "--no-renames", "-z",
                              "--diff-filter=AMCRT", base or EMPTY_TREE, source).stdout)
    present = [rel for rel in changed if os.path.lexists(cwd / rel)]
    if not present:
        return []
    literal = [f":(literal){rel}" for rel in present]  # no globbing of odd file names
    tracked = set(split_z(run_git(cwd, "ls-files", "-z", "--", *literal).stdout))
    return [rel for rel in present if rel not in tracked]


def _merging(cwd: Path) -> bool:
    return run_git(cwd, "rev-parse", "--quiet", "--verify", "MERGE_HEAD",
                   ok=(0, 1, 128)).status == 0


def _is_ancestor(cwd: Path, ancestor: str, descendant: str) -> bool:
    return run_git(cwd, "merge-base", "--is-ancestor", ancestor, descendant,
                   ok=(0, 1)).status == 0


def _blocked_files(output: str) -> tuple[str, ...]:
    """The indented file names git lists after '... would be overwritten by merge:'.

    Git indents them with a tab or with two spaces depending on the merge path it took.
    """
    files: list[str] = []
    listing = False
    for line in output.splitlines():
        if _OVERWRITE in line:
            listing = True
        elif listing and line[:1].isspace() and line.strip():
            files.append(line.strip())
        else:
            listing = False
    return tuple(files)
