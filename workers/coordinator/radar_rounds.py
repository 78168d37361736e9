"""When the radar's round with nothing recorded is worth running.

Each second with no change recorded, the radar used to read every session from the
store, `stat` each worktree and start `git for-each-ref` to see a commit no event
announced (a sync, a landing by update-ref): with 200 idle sessions, most of an idle
coordinator's CPU. That round now runs only when something it reads moved (stamps): the
store, the common git dir's refs, HEAD and packed-refs, or a directory holding the
worktrees; when a look at a session failed; and every BACKSTOP seconds whatever the
stamps say. On PostgreSQL the store's stamp cannot tell, so it runs each second as before.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path

from board.connection import Connection
from workers.coordinator.stamps import FileStamps, StoreStamp, git_ref_paths

BACKSTOP = 30.0  # seconds between full rounds however still the stamps are


class QuietRounds:
    """Stamps of what the radar's quiet round reads, and its backstop."""

    def __init__(self, conn: Connection, git_dir: Path,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.git_dir = git_dir
        self.clock = clock
        self._store = StoreStamp(conn)
        self._refs = FileStamps(git_ref_paths(git_dir))
        self._trees = FileStamps()
        self._full_at = float("-inf")
        self._again = True  # the first round is a full one
        self.skipped = 0  # quiet rounds not run (tests and the bench)

    def due(self) -> bool:
        """Whether a full round should run now (every stamp is looked at each call, so
        a change is seen once, by the call after it)."""
        moved = [self._store.moved(), self._refs.moved(), self._trees.moved()]
        if moved[1]:  # a new branch directory is stamped from now on
            self._refs.watch(git_ref_paths(self.git_dir))
        now = self.clock()
        if any(moved) or self._again or now - self._full_at >= BACKSTOP:
            self._full_at, self._again = now, False
            return True
        self.skipped += 1
        return False

    def again(self) -> None:
        """The last round failed or missed a session: the next one is a full round."""
        self._again = True

    def watch_trees(self, worktrees: Iterable[str]) -> None:
        """Stamp the directories holding these worktrees (one going shows there)."""
        self._trees.watch(sorted({Path(tree).parent for tree in worktrees}))
