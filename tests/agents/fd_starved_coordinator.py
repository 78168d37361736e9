"""The real coordinator loop, out of file descriptors during its first delivery (tests only).

    python -m tests.agents.fd_starved_coordinator HOME SOCKET

The first time a delivery has claimed its note, the process lowers its own soft
RLIMIT_NOFILE to the lowest descriptor free, so the next file it opens (the pipe of the
tmux call that pastes the note) fails with EMFILE, as in a coordinator that ran out of
descriptors. The descriptors come back once the coordinator has logged the failure (a
warning or error, whoever logs it). Runs until SIGTERM.
"""

from __future__ import annotations

import logging
import os
import resource
import signal
import sys
import threading
from pathlib import Path

from workers.coordinator.loop import Coordinator
from workers.tmux.server import RoomServer


def lowest_free_descriptor() -> int:
    probe = os.dup(0)
    os.close(probe)
    return probe


def main() -> int:
    home, socket_name = Path(sys.argv[1]), sys.argv[2]
    coordinator = Coordinator(home, server=RoomServer(socket_name), idle_after=0.3,
                              watch=False)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    starved = False
    claims = 0

    def on_step(reached: str) -> None:
        nonlocal claims, starved
        if reached == "claimed":
            claims += 1
            if claims == 1:  # nothing more can be opened: the paste's pipe fails
                resource.setrlimit(resource.RLIMIT_NOFILE, (lowest_free_descriptor(), hard))
                starved = True

    class GiveBack(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            nonlocal starved
            if starved and record.levelno >= logging.WARNING:
                resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
                starved = False

    logging.basicConfig(format="%(levelname)s %(name)s: %(message)s")  # to stderr
    logging.getLogger().addHandler(GiveBack())
    coordinator.deliverer.on_step = on_step
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    coordinator.run(stop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
