"""Frozen snapshots that cross the package boundary (never `git.Repo` objects)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class WorktreeInfo:
    """A session's worktree as created (or found) by `create_worktree`."""

    name: str
    path: Path
    branch: str
    base_commit: str


@dataclass(frozen=True)
class WorktreeStatus:
    """Where a worktree stands: uncommitted files, and commits relative to a base."""

    path: Path
    branch: str | None  # None when HEAD is detached
    head: str
    dirty: bool
    changed_files: tuple[str, ...]  # modified, staged or untracked; repo-relative
    ahead: int
    behind: int
    merged: bool  # the branch head is reachable from the main checkout's HEAD


@dataclass(frozen=True)
class RemovedWorktree:
    """What `remove_worktree` actually removed."""

    name: str
    path: Path
    branch: str
    worktree_removed: bool
    branch_deleted: bool


@dataclass(frozen=True)
class CommitInfo:
    """One commit, summarised for alerts and pings."""

    sha: str
    short: str
    message: str  # first line only
    author: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class SyncReport:
    """The outcome of merging another branch into a worktree."""

    merged: bool
    fast_forward: bool
    conflicts: tuple[str, ...]
    message: str
    # Files whose uncommitted changes made git refuse the merge (nothing was touched).
    blocked_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class RegisteredWorktree:
    """One entry of `git worktree list`."""

    path: Path
    head: str | None
    branch: str | None  # short name, None when detached
    prunable: bool  # its directory is gone
