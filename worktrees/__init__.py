"""Git worktrees for bullpen sessions: one `bullpen/<name>` branch and directory per session.

Everything here talks to git through GitPython's command wrapper and returns frozen
dataclasses; no module imports `workers`, `tui` or Textual, and of `board` only its error
root (`board.errors`, stdlib only). Errors users can meet are `WorktreeError` subclasses
(themselves `BullpenError`s) carrying an `exit_status`.
"""

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
from worktrees.sync import sync

__all__ = [
    "BadWorktreeInput", "CommitInfo", "RemovedWorktree", "SyncReport", "UnsafeRemoval",
    "WorktreeError", "WorktreeInfo", "WorktreeStatus", "branch_for", "branch_head",
    "check_branch_allowed", "commit_info", "commits_between", "create_worktree",
    "is_protected", "main_root", "open_repo", "remove_worktree", "session_diff", "sync",
    "worktree_path", "worktree_status",
]
