"""The dashboard bench's soak round: note commit → drawn while the soak's load runs.

A live room of the soak's 10 scripted sessions (bench/soak_bench.py), its store grown
with the quiet round's 5,000 tasks and 50,000 read notes; the dashboard runs headless
beside it (`dashboard_bench --serve`) while a thread here makes the soak's load (notes
and tasks through the CLI, commits in the worktrees, the coordinator killed every 2-6 s;
not the tmux server). After a warm-up, this process commits its own notes and times
them as the quiet round does. Every wait has a deadline: the child ends itself, its
reports are awaited for a bounded time, the load stops at an event or by the clock.
"""

from __future__ import annotations

import shutil
import threading
import time
import traceback

from bench.common import quick
from bench.dashboard_probe import Child, fill_store, measure
from bench.soak_bench import SESSIONS, Soak
from board.db import connect
from board.home import DB_NAME

WARM_UP = quick(5.0, 1.0)  # seconds of load before the first timed note
NOTES = quick(200, 10)
GAP_SECONDS = 0.1  # 20 s of timed notes under load
LOAD_SECONDS = quick(90.0, 15.0)  # the load stops by itself after this, measured or not
CLI_SECONDS = 30.0  # one CLI call of the load, at most


def soak_round() -> dict[str, object]:
    """Latency figures of the dashboard and of a bare poller under the soak's load."""
    soak = Soak()
    soak.cli_timeout = CLI_SECONDS
    stop = threading.Event()
    began = time.monotonic()
    child: Child | None = None
    load: threading.Thread | None = None
    try:
        soak.plan()
        soak.up()
        conn = connect(soak.home / DB_NAME)
        fill_store(conn, SESSIONS, pending_share=None)  # read notes: nothing to deliver
        conn.close()
        child = Child(soak.home, 0.5)
        child.report()  # the dashboard has its snapshot and has settled

        def churn() -> None:
            try:
                soak.churn(lambda: stop.is_set() or time.monotonic() - began > LOAD_SECONDS)
            except Exception:  # noqa: BLE001 - the bench goes on; say what stopped the load
                traceback.print_exc()

        load = threading.Thread(target=churn, name="bench-soak-load", daemon=True)
        load.start()
        stop.wait(WARM_UP)
        units = soak.number
        figures = measure(soak.home, child, SESSIONS, NOTES, GAP_SECONDS)
        print(f"soak load while timing: {soak.number - units} units (notes, tasks, commits),"
              f" {soak.restarts} coordinator kills, {len(soak.cli_failures)} cli failures")
        return figures
    finally:
        stop.set()
        if load is not None:
            load.join(timeout=CLI_SECONDS + 15)
        if child is not None:
            child.close()
        soak.close()
        shutil.rmtree(soak.repo.parent, ignore_errors=True)  # a room per run, with 50,000 notes
