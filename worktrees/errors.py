"""Typed errors a user can meet; the CLI turns each into one line on stderr and `exit_status`.

They derive from `board.errors`, the one error root every layer shares, so the CLI, the
MCP server and the coordinator handle a git failure as they handle any other. That
stdlib-only module is the one piece of `board` that `worktrees` may import (the
import-linter contract allows exactly `worktrees.errors -> board.errors`).
"""

from board.errors import BadInput, BullpenError


class WorktreeError(BullpenError):
    """A git operation failed for a reason that is not the caller's fault (exit status 1)."""


class BadWorktreeInput(WorktreeError, BadInput):
    """Bad name, not a repository, repository without commits or unknown ref (exit status 2)."""

    exit_status = 2


class UnsafeRemoval(BadWorktreeInput):
    """Removing would lose work (uncommitted changes or unmerged commits) and force was not set."""
