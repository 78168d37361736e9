"""The `bullpen coordinator` process: the lock, logging, and a reason when it stops.

Whatever stops it is logged as one line and kept in `coordinator.failed` (beside the
lock, not in logs/, which may be what failed), where `up` finds the reason to print
instead of "see the log".
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from workers import logs as room_logs
from workers.coordinator import guard
from workers.coordinator.lock import RoomLock
from workers.coordinator.loop import Coordinator
from workers.coordinator.slots import SlotHands

log = logging.getLogger(__name__)

FAILED_NAME = "coordinator.failed"


def failed_path(home: Path) -> Path:
    return home / FAILED_NAME


def start_failure(home: Path) -> str | None:
    """Why the last coordinator stopped, if it stopped on a fault (`up` clears it first)."""
    try:
        return failed_path(home).read_text(errors="replace").strip() or None
    except OSError:
        return None


def serve(home: Path,
          alongside: Callable[[Path], AbstractContextManager] | None = None,
          hands: SlotHands | None = None) -> int:
    """Run the coordinator: take the lock or leave quietly; 1 when it stopped on a fault.

    `alongside(home)` is a service that runs while this process holds the lock (the
    surfaces' hook server: the coordinator itself does not import the surfaces).
    `hands` start and release sessions under the warm cap (the room's launch: the
    coordinator does not import the room)."""
    logs = home / room_logs.DIR_NAME
    try:
        logs.mkdir(exist_ok=True)
        room_logs.configure(logs / "coordinator.log")
        logging.raiseExceptions = False  # a full disk must not print logging tracebacks
        lock = RoomLock.take(home)
    except Exception as error:
        return _stopped(home, error)
    if lock is None:
        print("a coordinator is already running for this room")
        return 0
    print(f"bullpen coordinator for {home.parent} (pid {os.getpid()}); log in {logs}")
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGHUP):  # `down` kills tmux: stop cleanly
        signal.signal(signum, lambda *_: stop.set())
    try:
        failed_path(home).unlink(missing_ok=True)
        with alongside(home) if alongside else contextlib.nullcontext():
            Coordinator(home, lock=lock, hands=hands).run(stop)
    except KeyboardInterrupt:
        pass
    except Exception as error:
        return _stopped(home, error)
    finally:
        lock.close()
    return 0


def _stopped(home: Path, error: BaseException) -> int:
    line = " ".join(str(error).split()) or type(error).__name__
    log.error("coordinator stopped: %s", guard.reason(error))
    print(f"bullpen coordinator: {line}")
    with contextlib.suppress(OSError):
        failed_path(home).write_text(line + "\n")
    return 1
