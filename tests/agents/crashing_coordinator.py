"""The real coordinator loop, killed with SIGKILL at one step of a delivery (tests only).

    python -m tests.agents.crashing_coordinator HOME SOCKET STEP

STEP is one of workers.coordinator.delivery.STEPS (claimed, pasted, entered,
submitted): the process kills itself with signal 9 the first time a delivery reaches
it, exactly as `kill -9` would. STEP `none` runs until SIGTERM.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

from workers.coordinator.delivery import STEPS
from workers.coordinator.loop import Coordinator
from workers.tmux.server import RoomServer


def main() -> int:
    home, socket_name, step = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    if step not in (*STEPS, "none"):
        sys.exit(f"unknown step {step!r}; use one of {', '.join(STEPS)} or none")
    coordinator = Coordinator(home, server=RoomServer(socket_name), idle_after=0.3,
                              watch=False)

    def on_step(reached: str) -> None:
        if reached == step:
            os.kill(os.getpid(), signal.SIGKILL)

    coordinator.deliverer.on_step = on_step
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    coordinator.run(stop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
