"""One creator or remover at a time: concurrent `git worktree add`s read each other's
half-written admin directories and fail, so bullpen serialises them across processes."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def worktrees_locked(root: Path) -> Iterator[None]:
    """Hold an exclusive lock on `<root>/.git/bullpen-worktrees.lock` (blocks until free).

    `root` is the main worktree; the lock sits beside git's own admin files, where it is
    never seen by `git status`.
    """
    lock_path = root / ".git" / "bullpen-worktrees.lock"
    with lock_path.open("a") as handle:
        # flock locks belong to the open file, so threads of one process exclude each other too.
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
