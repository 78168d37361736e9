"""Edits made while no coordinator watched: found at start-up by their modification time.

The watcher sees an edit as it happens; one made while no coordinator ran (killed, the
machine rebooted, before the new one's watch began) was seen by nobody, so a session
that had read the file was never alerted. While its watch runs, the coordinator touches
`.bullpen/watched` once its catch-up is done, within a second after the watcher handled
a burst of writes in the checkouts, and once more when it stops; when the next one's
watch has begun, each checkout's uncommitted files (as the watcher counts them: ignored
files never) modified after that time become one change of that checkout. No mark is
written while the watcher holds edits back for a git operation's HEAD move (they are not
reported yet: a mark would take them for handled). An idle room writes no mark: nothing
was modified since the last one, so nothing is taken for missed (a mark every second
woke the watcher every second, for its own write). Commits are the commit catch-up's
(`catch_up`). An edit in the last second before a crash may be reported twice, none is
lost; a deletion has no time and is not reported.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path

from workers.coordinator.change_filter import ChangeBatch, never_alerts, uncommitted

log = logging.getLogger(__name__)

WATCHED_FILE = "watched"  # in the room's home; its modification time is what counts
WATCHED_EVERY = 1.0  # seconds between marks while the checkouts are being written


class WatchMark:
    """One coordinator's side of `.bullpen/watched`: the catch-up once its watch began,
    then a mark at most every WATCHED_EVERY seconds after the watcher handled writes."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.caught_up = False
        self._marked = 0.0
        self._bursts = 0  # the watcher's count of handled bursts the last mark covers

    def follow(self, targets: Mapping[str, Path], now: float,
               record: Callable[[ChangeBatch], None], bursts: int, holding: bool) -> None:
        """Called while every checkout in `targets` is watched; `bursts`: how many bursts
        of writes the watcher has handled so far; `holding`: whether it holds edits back,
        unreported (then nothing is marked until it no longer does)."""
        if holding:
            return
        if not self.caught_up:
            since = watched_until(self.home)
            for batch in edits_since(targets, since) if since is not None else ():
                record(batch)
            self.caught_up = True
        elif bursts == self._bursts or now - self._marked < WATCHED_EVERY:
            return
        self._marked, self._bursts = now, bursts
        mark_watching(self.home)

    def stopping(self, holding: bool) -> None:
        """The watch ends now: it covered everything up to this moment, but for the edits
        it still holds back (`holding`), which the next watch's catch-up reports."""
        if self.caught_up and not holding:
            mark_watching(self.home)


def watched_until(home: Path) -> float | None:
    """Until when the last coordinator is known to have watched (None: never)."""
    try:
        return (home / WATCHED_FILE).stat().st_mtime
    except OSError:
        return None


def mark_watching(home: Path) -> None:
    """Every checkout is being watched as of now."""
    path = home / WATCHED_FILE
    try:
        os.utime(path)
    except FileNotFoundError:
        path.touch()


def edits_since(targets: Mapping[str, Path], since: float) -> list[ChangeBatch]:
    """One batch per checkout (source -> root) holding its uncommitted files modified
    after `since`."""
    batches = []
    for source, root in sorted(targets.items()):
        edited = sorted(path for path in uncommitted(root)
                        if not never_alerts(path) and _modified_after(root / path, since))
        if edited:
            log.info("%s: %d file(s) edited while no coordinator watched", source,
                     len(edited))
            batches.append(ChangeBatch(source, tuple(edited)))
    return batches


def _modified_after(path: Path, since: float) -> bool:
    try:
        return path.stat().st_mtime > since
    except OSError:  # deleted meanwhile
        return False
