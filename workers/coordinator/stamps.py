"""Cheap change detection: has anything a periodic read depends on changed since it ran?

An idle coordinator's periodic rounds (the radar's look at every branch head, the spend
reader's look at every session) find nothing new nearly every time, and with 200
sessions they were most of its CPU. A stamp is what such a round depends on, seen
without reading it:

- the store's: `board.wakeup.version` (SQLite's `data_version` and this connection's own
  changes: exact, one statement), for rounds every second or two; for the loop's tick
  (twenty a second) the `stat` of the database and its -wal file, which every commit
  writes (StoreFiles), at a tenth of a statement's cost. PostgreSQL cannot say: there
  every look counts as a change, and the reads keep their old cadence.
- files' and directories': (inode, size, mtime, ctime) from one `stat` each. Git
  replaces a ref, packed-refs, HEAD or an index by renaming a new file over it, which
  changes the directory's times too: stamping the directories of the refs shows a new
  branch as well as a moved one.

A file system's times are only as fine as its clock tick, so two changes within one
tick may leave one stamp. As git does with "racy" index entries, a stamp whose times are
within RACY seconds of the look is not trusted: the next look counts as a change too,
until the times are old enough that any later change must show a new one.

`BULLPEN_BENCH_NO_STAMPS=1` makes every look a change (the bench's "before" figure).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from board import wakeup
from board.connection import Connection
from board.db import is_postgres

RACY = 3.0  # seconds: coarser than any file system's timestamps (FAT's are 2 s)
OFF = "BULLPEN_BENCH_NO_STAMPS"  # for the bench only: today's behaviour, no gating

Stamp = tuple[int, int, int, int] | None


def enabled() -> bool:
    return os.environ.get(OFF) != "1"


def stamp(path: Path) -> Stamp:
    """(inode, size, mtime, ctime) of `path`, None when it cannot be seen."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


class FileStamps:
    """Stamps of a set of paths: `moved()` says whether any changed since its last call
    (the first call, and a call after the paths changed, say yes)."""

    def __init__(self, paths: Iterable[Path] = (),
                 clock: Callable[[], int] = time.time_ns) -> None:
        self.clock = clock
        self._paths = tuple(dict.fromkeys(paths))
        self._last: dict[Path, Stamp] | None = None
        self._racy = False
        self._on = enabled()

    @property
    def paths(self) -> tuple[Path, ...]:
        return self._paths

    @property
    def racy(self) -> bool:
        """The last look saw a time too recent to trust: something was just written."""
        return self._racy

    def watch(self, paths: Iterable[Path]) -> None:
        """Stamp these paths from now on (a new set counts as moved once)."""
        paths = tuple(dict.fromkeys(paths))
        if paths != self._paths:
            self._paths, self._last = paths, None

    def moved(self) -> bool:
        now = self.clock()  # before the stats: a change after it shows a later time
        seen = {path: stamp(path) for path in self._paths}
        moved = not self._on or self._racy or seen != self._last
        self._last = seen
        racy_after = now - int(RACY * 1e9)
        self._racy = any(s is not None and max(s[2], s[3]) >= racy_after
                         for s in seen.values())
        return moved


class StoreStamp:
    """The store's version as seen on `conn`: `moved()` says whether anything was
    committed since its last call (always True on PostgreSQL)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self._last: tuple[int, int] | None = None
        self._on = enabled()

    def moved(self) -> bool:
        seen = wakeup.version(self.conn)
        moved = not self._on or seen is None or seen != self._last
        self._last = seen
        return moved


class StoreFiles(FileStamps):
    """Stamps of the SQLite store's database file and its -wal (moved by every commit,
    whoever made it); on PostgreSQL there are no files to see: always moved."""

    def __init__(self, conn: Connection, db_path: Path,
                 clock: Callable[[], int] = time.time_ns) -> None:
        super().__init__([db_path, db_path.with_name(db_path.name + "-wal")], clock)
        self._shared = is_postgres(conn)

    def moved(self) -> bool:
        return super().moved() or self._shared


def git_ref_paths(git_dir: Path) -> list[Path]:
    """What moves when a branch head, HEAD or packed-refs does, in the common git dir
    `git_dir`: the dir itself, and every directory under refs/heads (and a reftable's)."""
    heads = git_dir / "refs" / "heads"
    found = [git_dir, git_dir / "refs", git_dir / "reftable", git_dir / "packed-refs",
             git_dir / "HEAD"]
    for top, dirs, _files in os.walk(heads):
        found.append(Path(top))
        dirs.sort()
    return found
