"""Typed errors a user can meet; the CLI turns each into one line on stderr and `exit_status`."""


class WorktreeError(Exception):
    """A git operation failed for a reason that is not the caller's fault (exit status 1)."""

    exit_status = 1


class BadWorktreeInput(WorktreeError):
    """Bad name, not a repository, repository without commits or unknown ref (exit status 2)."""

    exit_status = 2


class UnsafeRemoval(BadWorktreeInput):
    """Removing would lose work (uncommitted changes or unmerged commits) and force was not set."""
