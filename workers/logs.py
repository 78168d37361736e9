"""The room's logs (`.bullpen/logs/`): each one bounded, so no caller can fill the disk.

A full disk would make the store refuse every note, and a log line can be written for a
request anyone on the machine can send (the hook port). So every log rotates at
`CAP_BYTES` keeping `GENERATIONS` old files, a value in a line is cut to a short prefix
with its length (`clip`), every line (a traceback's too) to `LINE_CHARS`, and lines
for refused requests go through a `Sampler`: the first few in each window, then one line
counting the rest. Stdlib only, and cheap to import: the command hook writes its line
through `append_line`.
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
    line = cut_line(" ".join(line.splitlines()))  # one line, whatever the caller cut
    try:
        if os.path.getsize(path) >= cap:
            rotate(path)
    except OSError:
        pass  # not there yet
    with open(path, "a", encoding="utf-8", errors="replace") as handle:
        handle.write(line + "\n")


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


LINE_CHARS = 2000  # one line of a log: a message, or one line of a traceback
TRACE_LINES = 80  # lines of one record (its traceback's); past it the middle is dropped
TRACE_HEAD = 10  # of those, the first ones kept (the rest are the traceback's end)


def cut_line(line: str, limit: int = LINE_CHARS) -> str:
    """`line` cut to `limit` characters with its full length said (indent kept)."""
    return line if len(line) <= limit else f"{line[:limit]}… ({len(line)} chars)"


def cut_lines(text: str, limit: int = LINE_CHARS, most: int = TRACE_LINES) -> str:
    """`text` (a formatted record: message, traceback) with every line cut to `limit`
    and at most `most` lines: the first `TRACE_HEAD` and the last ones, where a
    traceback names its exception."""
    lines = text.splitlines()
    if len(lines) > most:
        tail = most - TRACE_HEAD - 1
        lines = [*lines[:TRACE_HEAD], f"… ({len(lines) - most + 1} lines not logged)",
                 *lines[-tail:]]
    return "\n".join(cut_line(line, limit) for line in lines)


def handler_for(path: os.PathLike | str):
    """A long-running process's log handler: rotating at the cap, each record's every
    line cut (`cut_lines`), its traceback's included."""
    import logging

    class Cutting(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            # The whole text: logging keeps the first handler's traceback on the record
            # (exc_text), so cutting only formatException would miss one made elsewhere.
            return cut_lines(super().format(record))

    log_handler = handler(str(path))
    log_handler.setFormatter(Cutting("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    return log_handler


def configure(path: os.PathLike | str) -> None:
    """A long-running process's logging: INFO and up into `path` (`handler_for`)."""
    import logging

    logging.basicConfig(level=logging.INFO, handlers=[handler_for(path)])
