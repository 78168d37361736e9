"""Names: which branch and directory belong to a session, and which branches are off limits."""

from __future__ import annotations

import re
from pathlib import Path

from worktrees.errors import BadWorktreeInput

BRANCH_PREFIX = "bullpen/"
# Hermes prunes these on startup, so anything we put there would vanish under a session.
PROTECTED_PREFIXES = ("hermes/hermes-", "pr-")

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")


def check_name(name: str) -> str:
    """Return `name` if it is usable as a session, branch and directory name; else raise."""
    if not _NAME.fullmatch(name) or ".." in name or name.endswith((".", ".lock")):
        raise BadWorktreeInput(
            f"invalid session name {name!r}: use up to 63 letters, digits, '-', '_' or '.', "
            "starting with a letter or digit"
        )
    return name


def branch_for(name: str) -> str:
    """The branch a session works on: `bullpen/<name>`."""
    return BRANCH_PREFIX + check_name(name)


def worktree_path(repo_root: Path | str, name: str) -> Path:
    """Where a session's worktree lives: `<repo_root>/.bullpen/worktrees/<name>`."""
    return Path(repo_root) / ".bullpen" / "worktrees" / check_name(name)


def is_protected(branch: str) -> bool:
    """True for branches Hermes deletes on startup (`hermes/hermes-*`, `pr-*`)."""
    branch = branch.removeprefix("refs/heads/")
    return branch.startswith(PROTECTED_PREFIXES)


def check_branch_allowed(branch: str) -> str:
    """Return `branch` unless Hermes owns its prefix; bullpen never creates or touches those."""
    if is_protected(branch):
        raise BadWorktreeInput(
            f"branch {branch!r} uses a prefix Hermes prunes on startup "
            f"({', '.join(p + '*' for p in PROTECTED_PREFIXES)}); choose another name"
        )
    return branch
