"""`.bullpen/watched`: marked after the catch-up and after writes the watcher handled,
never by an idle room (workers.coordinator.missed_edits)."""

from __future__ import annotations

import os
from pathlib import Path

from workers.coordinator.change_filter import ChangeBatch
from workers.coordinator.missed_edits import WATCHED_EVERY, WATCHED_FILE, WatchMark


def _mtime(home: Path) -> int:
    return (home / WATCHED_FILE).stat().st_mtime_ns


def _age(home: Path) -> None:
    """The mark as if written long ago, so that a new one is told apart by its time."""
    os.utime(home / WATCHED_FILE, ns=(10**9, 10**9))


def test_the_catch_up_marks_then_an_idle_room_never_does(tmp_path: Path) -> None:
    recorded: list[ChangeBatch] = []
    mark = WatchMark(tmp_path)
    mark.follow({}, 100.0, recorded.append, bursts=0, holding=False)
    assert (tmp_path / WATCHED_FILE).exists()  # the catch-up is done: watched as of now
    _age(tmp_path)
    for tick in range(1, 30):  # half a minute of ticks, nothing written anywhere
        mark.follow({}, 100.0 + tick, recorded.append, bursts=0, holding=False)
    assert _mtime(tmp_path) == 10**9
    assert recorded == []


def test_a_burst_of_writes_is_marked_within_a_second(tmp_path: Path) -> None:
    mark = WatchMark(tmp_path)
    mark.follow({}, 100.0, lambda batch: None, bursts=0, holding=False)
    _age(tmp_path)
    mark.follow({}, 100.0 + WATCHED_EVERY / 2, lambda batch: None, bursts=1, holding=False)
    assert _mtime(tmp_path) == 10**9  # at most one mark a second
    mark.follow({}, 100.0 + WATCHED_EVERY, lambda batch: None, bursts=1, holding=False)
    assert _mtime(tmp_path) > 10**9
    _age(tmp_path)
    mark.follow({}, 100.0 + 3 * WATCHED_EVERY, lambda batch: None, bursts=1, holding=False)
    assert _mtime(tmp_path) == 10**9  # no burst since: nothing to mark


def test_no_mark_covers_edits_the_watcher_holds_back(tmp_path: Path) -> None:
    """Edits held for a git operation's HEAD move are not reported yet: a mark (a tick's or
    the one at stop) would take them for handled, and a crash would lose them."""
    mark = WatchMark(tmp_path)
    mark.follow({}, 100.0, lambda batch: None, bursts=0, holding=True)
    assert not mark.caught_up and not (tmp_path / WATCHED_FILE).exists()
    mark.follow({}, 101.0, lambda batch: None, bursts=0, holding=False)
    _age(tmp_path)
    mark.follow({}, 100.0 + 3 * WATCHED_EVERY, lambda batch: None, bursts=1, holding=True)
    mark.stopping(holding=True)
    assert _mtime(tmp_path) == 10**9
    mark.follow({}, 100.0 + 4 * WATCHED_EVERY, lambda batch: None, bursts=1, holding=False)
    assert _mtime(tmp_path) > 10**9  # released: the burst is marked now
    _age(tmp_path)
    mark.stopping(holding=False)
    assert _mtime(tmp_path) > 10**9
