"""A directory one agent process may use at a time, machine-wide (a Hermes profile).

Two Hermes on one profile corrupt each other's memory, across rooms and repositories as
much as inside one, so the claim lives in the directory itself: `bullpen.holder` names
the process that runs on it (pid and start time), its room and session. A holder is
live while that very process runs (a reused pid has another start time), so a crash or
a reboot leaves nothing to clean up. Checking and recording happen under an flock on
the file, held by the launching bullpen from the check until the pane's process is
written down: two launches at once, from any room, are decided one after the other.

(The alternative, an flock inherited by the agent itself, would tie the claim to its
life in the kernel, but tmux starts the pane, not bullpen: the lock would need a wrapper
process in front of the agent, and the refusal would come from the pane after spawn had
already said yes.)
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from board.errors import BullpenError, Refused
from board.records import record
from workers.tmux.processes import start_time

HOLDER_FILE = "bullpen.holder"
LOCK_WAIT = 10.0  # seconds a launch waits for another launch's check on the same directory


@record(frozen=True)
class Holder:
    """The live process running on a directory, and whose it is."""

    pid: int
    room: str
    session: str

    def describe(self) -> str:
        return f"session {self.session!r} of {self.room} (pid {self.pid})"


def _read(path: Path) -> Holder | None:
    """The holder written in `path` if that process still runs."""
    try:
        record = json.loads(path.read_text() or "{}")
        pid, started = int(record["pid"]), record.get("started")
        room, session = str(record["room"]), str(record["session"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    now = start_time(pid)
    if now is None or (started is not None and now not in (0, started)):
        return None  # gone, or its pid now belongs to another process
    return Holder(pid, room, session)


def holder(directory: Path) -> Holder | None:
    """The live process holding `directory`, or None (a check; `claim` decides)."""
    return _read(directory / HOLDER_FILE)


def refusal(what: str, found: Holder) -> Refused:
    """The one line that refuses a second process on `what`."""
    return Refused(f"{what} is in use by {found.describe()}; stop that session first"
                   " or pick another profile")


@contextlib.contextmanager
def claim(directory: Path, what: str, room: Path,
          session: str) -> Iterator[Callable[[int], None]]:
    """Hold the check on `directory` while the caller starts its process: refuses (one
    line naming the holder) when a live process already holds it; the callable given
    records the started process (`pid`) as the holder. A directory that does not exist
    cannot be held by anyone: nothing is claimed."""
    path = directory / HOLDER_FILE
    if not directory.is_dir():
        yield lambda pid: None
        return
    with open(path, "a+") as handle:
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise BullpenError(f"{what} is being started by another bullpen;"
                                       " try again") from None
                time.sleep(0.05)  # another launch's check: waiting with a deadline
        found = _read(path)
        if found is not None:
            raise refusal(what, found)

        def record(pid: int) -> None:
            text = json.dumps({"pid": pid, "started": start_time(pid), "room": str(room),
                               "session": session, "at": time.time()})
            handle.seek(0)
            handle.truncate()
            handle.write(text + "\n")
            handle.flush()
            os.fsync(handle.fileno())

        yield record
