"""Git worktrees for bullpen sessions: one `bullpen/<name>` branch and directory per session.

Everything here talks to git through a git process (worktrees.gitcmd; GitPython only
where its object database is needed: repo.open_repo, tree_edit, clone) and returns frozen
dataclasses; no module imports `workers`, `tui` or Textual, and of `board` only its error
root (`board.errors`, stdlib only). Errors users can meet are `WorktreeError` subclasses
(themselves `BullpenError`s) carrying an `exit_status`.

The names below load their module on first use (PEP 562): `bullpen ls` imports
worktrees.status, which runs this file, and must not load worktrees.create (shutil, with
its compression modules) and the rest. `sync` is imported here: a function named as its
own module, which importing worktrees.sync would otherwise put in its place.
"""

from __future__ import annotations

import importlib

from worktrees.sync import sync

TYPE_CHECKING = False
if TYPE_CHECKING:
    from worktrees.changes import branch_head, commit_info, commits_between, session_diff
    from worktrees.create import create_worktree
    from worktrees.errors import BadWorktreeInput, UnsafeRemoval, WorktreeError
    from worktrees.models import (
        CommitInfo,
        RemovedWorktree,
        SyncReport,
        WorktreeInfo,
        WorktreeStatus,
    )
    from worktrees.naming import branch_for, check_branch_allowed, is_protected, worktree_path
    from worktrees.remove import remove_worktree
    from worktrees.repo import main_root, open_repo
    from worktrees.status import worktree_status

__all__ = [
    "BadWorktreeInput", "CommitInfo", "RemovedWorktree", "SyncReport", "UnsafeRemoval",
    "WorktreeError", "WorktreeInfo", "WorktreeStatus", "branch_for", "branch_head",
    "check_branch_allowed", "commit_info", "commits_between", "create_worktree",
    "is_protected", "main_root", "open_repo", "remove_worktree", "session_diff", "sync",
    "worktree_path", "worktree_status",
]
_HOMES = {
    "changes": ("branch_head", "commit_info", "commits_between", "session_diff"),
    "create": ("create_worktree",),
    "errors": ("BadWorktreeInput", "UnsafeRemoval", "WorktreeError"),
    "models": ("CommitInfo", "RemovedWorktree", "SyncReport", "WorktreeInfo", "WorktreeStatus"),
    "naming": ("branch_for", "check_branch_allowed", "is_protected", "worktree_path"),
    "remove": ("remove_worktree",),
    "repo": ("main_root", "open_repo"),
    "status": ("worktree_status",),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> object:
    if name not in _HOME_OF:
        raise AttributeError(f"module 'worktrees' has no attribute {name!r}")
    return getattr(importlib.import_module(f"worktrees.{_HOME_OF[name]}"), name)
