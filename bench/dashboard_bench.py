"""Dashboard bench: idle CPU and note commit → on-screen latency, against bare SQLite.

Two rounds (bench/dashboard_probe.py has the tools): a quiet store of 50 sessions, 5,000
tasks and 50,000 notes, then a live room under the soak's load (bench/dashboard_soak.py).
Run: `python -m bench dashboard` or `python bench/dashboard_bench.py [quiet] [soak]`.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.dashboard_probe import (  # noqa: E402
    GAP_SECONDS,
    IDLE_SECONDS,
    NAMES,
    NOTE_ROWS,
    NOTES,
    SESSIONS,
    TASKS,
    Child,
    bare_idle,
    build_store,
    measure,
    print_latency,
)
from bench.dashboard_soak import soak_round  # noqa: E402
from bench.figures import record  # noqa: E402
from board.home import DB_NAME  # noqa: E402


def quiet_round() -> None:
    """Idle CPU, then latency in a store nothing else writes to."""
    from tui.dashboard.tail import POLL_SECONDS

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / ".bullpen"
        started = time.monotonic()
        build_store(home)
        print(f"store: {SESSIONS} sessions, {TASKS} tasks, {NOTE_ROWS} notes"
              f" (built in {time.monotonic() - started:.1f} s)")
        child = Child(home, IDLE_SECONDS)
        try:
            bare_cpu = bare_idle(home / DB_NAME, IDLE_SECONDS, POLL_SECONDS)
            idle = child.report()
            app_share = idle["idle_cpu"] / idle["idle_wall"]
            bare_share = bare_cpu / IDLE_SECONDS
            print(f"idle CPU: dashboard {app_share:.2%} of a core over"
                  f" {idle['idle_wall']:.1f} s (target < 2 %); bare poll loop"
                  f" {bare_share:.2%}; ratio {app_share / max(bare_share, 1e-9):.1f}x")
            record("dashboard idle CPU, 50 sessions", f"{app_share:.2%} of a core",
                   f"bare poll loop {bare_share:.2%}", app_share / max(bare_share, 1e-9),
                   "< 2 %", app_share < 0.02)
            figures = measure(home, child, NAMES, NOTES, GAP_SECONDS)
        finally:
            child.close()
    print_latency(figures)


def main(rounds: Sequence[str] = ("quiet", "soak")) -> int:
    """Both rounds (or the named ones): idle CPU and latency, then latency under soak."""
    if "quiet" in rounds:
        print("-- quiet store --", flush=True)
        quiet_round()
    if "soak" in rounds:
        print("-- under the soak's load --", flush=True)
        print_latency(soak_round(), "under the soak's load")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ("quiet", "soak")))
