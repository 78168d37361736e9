"""Edits written while their checkout's git was at work: held back for its HEAD move.

git's checkout, merge, reset and commit write the working-tree files and the index
(through index.lock) first and move the branch last. Under load the move has come bursts
later than the files (seen in CI), and until it does they look like uncommitted edits
against the old HEAD. The watcher asks `at_work` which checkouts' git wrote or locked
their index, holds those checkouts' edits here, takes them back when a HEAD moves (the
move explains them, or they are edits after all), and reports what falls `due`: edits
whose grace passed with no move (a `git add`, a `stash pop`, a conflicted merge).
Nothing here runs git; `at_work` looks for each checkout's index.lock.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from workers.coordinator.change_filter import INDEX_LOCK, Target

# How long held edits wait for their checkout's HEAD to move, from git's last sign of work
# there. git moves the branch right after it commits the index; under load that came more
# than a burst's 50 ms quiet later. This is 20 of those, and short next to a reader's wait.
GIT_GRACE_MS = 1000
# The longest edits are held, however long git seems at work: an index.lock left by a
# killed git must not hold a checkout's edits back for good.
GIT_HOLD_LIMIT_MS = 5000


@dataclass
class _Held:
    """One checkout's held edits; due at `until` (time.monotonic() seconds)."""

    paths: set[str]
    began: float
    until: float


class HeldEdits:
    """Per checkout (source name), the edits held for a HEAD move; one watcher thread's."""

    def __init__(self, grace_ms: int = GIT_GRACE_MS) -> None:
        self.grace_ms = grace_ms
        self._held: dict[str, _Held] = {}
        self._locked: set[str] = set()  # sources whose index.lock existed at the last look

    def __bool__(self) -> bool:
        return bool(self._held)

    def at_work(self, targets: Iterable[Target], index_written: set[str]) -> set[str]:
        """The sources whose git is at work in this burst: their index written in it, or
        its lock held now or at the last look (released since, it was held while this
        burst's files were written, though its release may fall in the next burst)."""
        locked = {t.source for t in targets
                  if t.git_dir is not None and (t.git_dir / INDEX_LOCK).exists()}
        at_work = index_written | locked | self._locked
        self._locked = locked
        return at_work

    def locked(self, source: str) -> bool:
        """Whether the source's index.lock existed at the last look (git at work still)."""
        return source in self._locked

    def hold(self, source: str, paths: Iterable[str], now: float) -> None:
        """Hold `paths` back; git at work again holds the source's earlier edits longer,
        up to GIT_HOLD_LIMIT_MS since they were first held."""
        held = self._held.get(source)
        if held is None:
            paths = set(paths)
            if not paths:
                return
            held = self._held[source] = _Held(set(), began=now, until=now)
        held.paths.update(paths)
        held.until = min(now + self.grace_ms / 1000, held.began + GIT_HOLD_LIMIT_MS / 1000)

    def of(self, source: str) -> set[str]:
        """The source's held paths (a copy; none held: empty)."""
        held = self._held.get(source)
        return set(held.paths) if held is not None else set()

    def release(self, source: str) -> None:
        """Its HEAD moved: the caller took its held paths (`of`) into that move."""
        self._held.pop(source, None)

    def told(self, source: str, paths: Iterable[str]) -> None:
        """These of the source's paths were reported as edits now: not again when due."""
        held = self._held.get(source)
        if held is None:
            return
        held.paths.difference_update(paths)
        if not held.paths:
            del self._held[source]

    def keep_only(self, sources: Iterable[str]) -> None:
        """Forget the checkouts no longer watched."""
        kept = set(sources)
        for source in set(self._held) - kept:
            del self._held[source]
        self._locked &= kept

    def due(self, now: float) -> dict[str, list[str]]:
        """Take out the edits whose grace has passed: source -> paths, to check and report."""
        due = {source: sorted(held.paths) for source, held in self._held.items()
               if held.until <= now}
        for source in due:
            del self._held[source]
        return due

    def wait_ms(self, now: float, longest_ms: int) -> int:
        """How long a watch may wait for events before the next edits fall due (at least
        1: 0 would mean for ever), `longest_ms` when none are held."""
        if not self._held:
            return longest_ms
        soonest = min(held.until for held in self._held.values()) - now
        return max(1, min(longest_ms, math.ceil(soonest * 1000)))
