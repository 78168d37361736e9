"""Opt-in, best-effort read detection for agents without hooks: inotify on a worktree.

Linux only (inotify through ctypes). A file counts as read when it was opened without
write access and closed again (`IN_CLOSE_NOWRITE`), which a `cat`, an editor opening a
file or an agent's file tool all do. What this cannot tell apart, honestly:

- *who* opened the file: inotify carries no process id, so `git status`, a test runner,
  an indexer or the user's own editor in that worktree count as the session's reads.
  Calls made by this process can be excluded with `with fs.paused(): ...`;
- a file opened and closed without reading a byte (rare, harmless: it only makes an
  alert more likely, never less).

`.git`, `.bullpen`, `__pycache__` and `node_modules` are not watched. New directories are
watched as they appear. Reads are reported in batches (every `flush_s`) to `on_reads`
with repo-relative paths (the coordinator stores them as reads of source "fs").
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import select
import struct
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

IN_ACCESS, IN_CLOSE_NOWRITE, IN_OPEN = 0x001, 0x010, 0x020
IN_CREATE, IN_MOVED_TO, IN_DELETE_SELF, IN_IGNORED = 0x100, 0x080, 0x400, 0x8000
IN_ONLYDIR, IN_ISDIR = 0x01000000, 0x40000000
IN_NONBLOCK, IN_CLOEXEC = 0o4000, 0o2000000
_MASK = IN_CLOSE_NOWRITE | IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF
_EVENT = struct.Struct("iIII")
SKIPPED_DIRS = frozenset({".git", ".bullpen", "__pycache__", "node_modules"})


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


class FsReads:
    """Watch one worktree for files opened read-only; report them to `on_reads`."""

    def __init__(self, worktree: Path, on_reads: Callable[[list[str]], None],
                 flush_s: float = 0.1) -> None:
        self.worktree = Path(worktree).resolve()
        self.on_reads = on_reads
        self.flush_s = flush_s
        self._libc = _libc()
        self._fd = -1
        self._dirs: dict[int, Path] = {}  # watch descriptor -> directory
        self._paused = 0
        self._lock = threading.Lock()  # one reader of the descriptor at a time
        self._pending: set[str] = set()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Add the watches (so reads after this returns are seen) and start the thread."""
        if self._thread is not None:
            return
        self._fd = self._libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        self._add_tree(self.worktree)
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="bullpen-fs-reads", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread and close the inotify descriptor (pending reads are flushed)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Ignore opens while inside (our own git calls in the worktree)."""
        with self._lock:
            self._collect(keep=True)  # reads before the block still count
            self._paused += 1
        try:
            yield
        finally:
            with self._lock:
                self._collect(keep=False)  # the block's own opens are queued by now: drop
                self._paused -= 1

    def is_watching(self, directory: Path) -> bool:
        """Whether opens in `directory` are seen yet (a new directory is added shortly
        after it appears; a file read before that is missed)."""
        with self._lock:
            return Path(directory).resolve() in self._dirs.values()

    def _add_tree(self, top: Path) -> None:
        for directory, subdirs, _files in os.walk(top):
            subdirs[:] = [name for name in subdirs if name not in SKIPPED_DIRS]
            self._add_dir(Path(directory))

    def _add_dir(self, directory: Path) -> None:
        wd = self._libc.inotify_add_watch(self._fd, os.fsencode(directory),
                                          _MASK | IN_ONLYDIR)
        if wd >= 0:
            self._dirs[wd] = directory

    def _run(self) -> None:
        last_flush = time.monotonic()
        while not self._stop.is_set():
            ready, _, _ = select.select([self._fd], [], [], self.flush_s)
            with self._lock:
                if ready:
                    self._collect(keep=not self._paused)
                # report after a quiet spell, or at least every few spells under load
                if ready and time.monotonic() - last_flush < 5 * self.flush_s:
                    continue
                found, self._pending = self._pending, set()
            self._flush(found)
            last_flush = time.monotonic()
        with self._lock:
            self._collect(keep=not self._paused)
            found, self._pending = self._pending, set()
        self._flush(found)

    def _collect(self, keep: bool) -> None:
        """Read every queued event; keep the reads in `_pending` unless told to drop them."""
        while True:
            try:
                data = os.read(self._fd, 65536)
            except OSError:  # EAGAIN: the queue is empty
                return
            found = self._parse(data)
            if keep:
                self._pending |= found

    def _parse(self, data: bytes) -> set[str]:
        found: set[str] = set()
        offset = 0
        while offset < len(data):
            wd, mask, _cookie, size = _EVENT.unpack_from(data, offset)
            raw_name = data[offset + _EVENT.size: offset + _EVENT.size + size]
            offset += _EVENT.size + size
            directory = self._dirs.get(wd)
            if directory is None:
                continue
            name = os.fsdecode(raw_name.rstrip(b"\0"))
            if mask & IN_IGNORED:
                self._dirs.pop(wd, None)
            elif mask & IN_ISDIR:
                if mask & (IN_CREATE | IN_MOVED_TO) and name not in SKIPPED_DIRS:
                    self._add_tree(directory / name)
            elif mask & IN_CLOSE_NOWRITE and name:
                relative = (directory / name).relative_to(self.worktree)
                if relative.parts[0] not in SKIPPED_DIRS:
                    found.add(relative.as_posix())
        return found

    def _flush(self, found: set[str]) -> None:
        if found:
            self.on_reads(sorted(found))
