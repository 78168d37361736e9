"""The room's logs (`.bullpen/logs/`): each one bounded, so no caller can fill the disk.

A full disk would make the store refuse every note, and a log line can be written for a
request anyone on the machine can send (the hook port). So every log rotates at
`CAP_BYTES` keeping `GENERATIONS` old files, a value in a line is cut to a short prefix
with its length (`clip`), and lines for refused requests go through a `Sampler`: the
first few in each window, then one line counting the rest. Stdlib only, and cheap to
import: the command hook writes its line through `append_line`.
"""

from __future__ import annotations

import os
import time

DIR_NAME = "logs"
CAP_BYTES = 1024 * 1024  # one log file; with its generations a log holds ≤ 4 MiB
GENERATIONS = 3
CLIP_CHARS = 120


def clip(value: object, limit: int = CLIP_CHARS) -> str:
    """`value` on one line, cut to `limit` characters with its full length said."""
    text = " ".join(str(value).split())
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text)} chars)"


def rotate(path: str, generations: int = GENERATIONS) -> None:
    """`path` → `path.1` → … → `path.N`; the oldest generation is dropped."""
    for number in range(generations - 1, 0, -1):
        older = f"{path}.{number}"
        if os.path.exists(older):
            os.replace(older, f"{path}.{number + 1}")
    if os.path.exists(path):
        os.replace(path, f"{path}.1")


def append_line(path: str, line: str, cap: int = CAP_BYTES) -> None:
    """Append one line to `path`, rotating it first when it reached `cap` (several
    processes may race here: the worst case is a line in the newer file, never a log
    that grows past its cap by more than a line each)."""
    try:
        if os.path.getsize(path) >= cap:
            rotate(path)
    except OSError:
        pass  # not there yet
    with open(path, "a", encoding="utf-8", errors="replace") as handle:
        handle.write(line if line.endswith("\n") else line + "\n")


def handler(path: str):
    """A `logging` handler for a long-running process's log: rotating at the cap."""
    from logging.handlers import RotatingFileHandler

    return RotatingFileHandler(path, maxBytes=CAP_BYTES, backupCount=GENERATIONS,
                               encoding="utf-8", errors="replace")


def sizes(home: os.PathLike | str) -> dict[str, int]:
    """Each log in the room's `logs/` with its size in bytes (generations included)."""
    folder = os.path.join(home, DIR_NAME)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return {}
    found = {}
    for name in names:
        try:
            found[name] = os.path.getsize(os.path.join(folder, name))
        except OSError:
            continue
    return found


class Sampler:
    """Lets through the first `burst` events in each `window` seconds; the rest are only
    counted, and the count is handed back once with the first event of the next window."""

    def __init__(self, burst: int = 5, window: float = 60.0) -> None:
        import threading  # here: the command hook, which imports this module, needs none

        self.burst, self.window = burst, window
        self._lock = threading.Lock()
        self._start = time.monotonic()
        self._seen = 0
        self._dropped = 0

    def admit(self) -> tuple[bool, int]:
        """(log this one?, how many earlier ones were dropped unlogged, to say now)."""
        with self._lock:
            now = time.monotonic()
            if now - self._start >= self.window:
                self._start, self._seen = now, 0
            self._seen += 1
            if self._seen > self.burst:
                self._dropped += 1
                return False, 0
            dropped, self._dropped = self._dropped, 0
            return True, dropped

    def dropped(self) -> int:
        """How many were dropped since the last one let through (and forget them)."""
        with self._lock:
            dropped, self._dropped = self._dropped, 0
            return dropped


LINE_CHARS = 2000  # a log message's own text; a traceback after it stays whole


def configure(path: os.PathLike | str) -> None:
    """A long-running process's logging: INFO and up into `path`, rotating at the cap,
    each message cut to `LINE_CHARS`."""
    import logging

    class Clipping(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            message = record.getMessage()
            if len(message) > LINE_CHARS:
                record.msg, record.args = clip(message, LINE_CHARS), None
            return super().format(record)

    log_handler = handler(str(path))
    log_handler.setFormatter(Clipping("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[log_handler])
