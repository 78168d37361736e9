"""The coordinator's lock file: one coordinator per room, and where it says how it is.

The lock is an `flock` on an open descriptor. Deleting or replacing the path does not
release it, so the holder checks that the path still names its file (`RoomLock.held`)
and takes the new file, or stops when another coordinator already holds it; otherwise
two coordinators would record every change twice.

The file holds the pid on its first line and the coordinator's state on the second
(e.g. "store not writable — database or disk is full"). The state is written in place
over a fixed-size, already-allocated record, so it can still be written when the disk
is full — which is exactly when it matters.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
from pathlib import Path

from board.errors import BullpenError

LOCK_NAME = "coordinator.lock"
RECORD_BYTES = 512
OK_STATE = "ok"


def lock_path(home: Path) -> Path:
    return home / LOCK_NAME


def check_lock_path(home: Path) -> None:
    """Refuse a lock path that cannot be a lock file (a directory, a symlink, a device),
    with one line saying how to fix it."""
    path = lock_path(home)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as error:
        raise BullpenError(f"cannot read {path} ({error.strerror})") from None
    if stat.S_ISREG(mode):
        return
    kind = ("a directory" if stat.S_ISDIR(mode) else
            "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file")
    remove = "rmdir" if stat.S_ISDIR(mode) else "rm"
    raise BullpenError(f"{path} is {kind}, not the coordinator's lock file; remove it"
                       f" ({remove} {path}) and run bullpen up again")


def _open(path: Path) -> int:
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as error:
        check_lock_path(path.parent)  # the usual causes, in one line
        raise BullpenError(f"cannot open {path} ({error.strerror})") from None


def is_running(home: Path) -> bool:
    """True when a coordinator holds the room's lock (BullpenError for a lock path that
    cannot be a lock file)."""
    check_lock_path(home)
    path = lock_path(home)
    if not path.exists():
        return False
    fd = _open(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing also releases a lock we took just to look
    return False


def running_pid(home: Path) -> int | None:
    """The pid of the coordinator holding the room's lock (None when none runs)."""
    try:
        first = lock_path(home).read_text(errors="replace").split(maxsplit=1)[:1]
    except OSError:
        return None
    return int(first[0]) if first and first[0].isdigit() and is_running(home) else None


def read_state(home: Path) -> str | None:
    """The running coordinator's state line (None when none runs or it is fine)."""
    try:
        lines = lock_path(home).read_text(errors="replace").splitlines()
    except OSError:
        return None
    state = lines[1].strip() if len(lines) > 1 else ""
    if not state or state == OK_STATE or not is_running(home):
        return None
    return state


class RoomLock:
    """The held lock of a running coordinator."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path, self.fd = path, fd
        self.state = OK_STATE
        self.write_state(OK_STATE)

    @classmethod
    def take(cls, home: Path) -> RoomLock | None:
        """The lock, or None when another coordinator holds it."""
        check_lock_path(home)
        path = lock_path(home)
        fd = _open(path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        return cls(path, fd)

    def write_state(self, state: str) -> None:
        """Record the state for `ls` and the dashboard (best effort: never raises)."""
        self.state = state
        record = f"{os.getpid()}\n{state}\n".encode(errors="replace")[: RECORD_BYTES - 1]
        with contextlib.suppress(OSError):
            os.pwrite(self.fd, record.ljust(RECORD_BYTES - 1) + b"\n", 0)

    def held(self) -> bool:
        """Whether the path still names our file; if it was deleted or replaced, take the
        new one (False when another coordinator holds it: this one must stop)."""
        try:
            ours = os.fstat(self.fd)
            now = os.stat(self.path, follow_symlinks=False)
            if (now.st_dev, now.st_ino) == (ours.st_dev, ours.st_ino):
                return True
        except FileNotFoundError:
            pass
        try:
            replacement = RoomLock.take(self.path.parent)
        except BullpenError:
            return False
        if replacement is None:
            return False
        os.close(self.fd)
        self.fd = replacement.fd
        self.write_state(self.state)
        return True

    def close(self) -> None:
        os.close(self.fd)
