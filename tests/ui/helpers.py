"""Waiting on the dashboard in Pilot tests: deadlines and pauses, never sleeps."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

from textual.pilot import Pilot
from textual.worker import WorkerCancelled, WorkerFailed

from board.db import connect
from board.home import DB_NAME
from board.views import last_event_id
from tui.dashboard.app import DashboardApp
from tui.dashboard.screens.main import MainScreen


async def wait_for(pilot: Pilot, condition: Callable[[], bool], seconds: float = 10.0,
                   what: str = "condition") -> None:
    """Pause the pilot until `condition()` holds, failing after `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.01)


async def workers_done(app: DashboardApp) -> None:
    """Wait for the running workers; one that failed has already been reported (as a
    notification, which tests assert), so its failure is not raised here again, and an
    exclusive one (the status line's count) may have been replaced by a newer one."""
    for worker in list(app.workers):
        with contextlib.suppress(WorkerFailed, WorkerCancelled):
            await worker.wait()


def main_screen(app: DashboardApp) -> MainScreen:
    screen = app.screen_stack[0]
    assert isinstance(screen, MainScreen)
    return screen


async def loaded(pilot: Pilot) -> MainScreen:
    """Wait for the first snapshot and the workers it started."""
    screen = main_screen(pilot.app)  # type: ignore[arg-type]
    await wait_for(pilot, lambda: screen.loaded, what="the first snapshot")
    await workers_done(pilot.app)  # type: ignore[arg-type]
    await pilot.pause()
    return screen


async def settled(pilot: Pilot) -> MainScreen:
    """Wait for running workers, then until the view shows every event in the store."""
    app: DashboardApp = pilot.app  # type: ignore[assignment]
    await workers_done(app)
    screen = main_screen(app)
    conn = connect(app.home / DB_NAME)
    try:
        newest = last_event_id(conn)
    finally:
        conn.close()
    await wait_for(pilot, lambda: screen.applied_event >= newest, what="the view to catch up")
    await pilot.pause()
    return screen


def notifications(app: DashboardApp) -> list[str]:
    """The texts of the notifications currently shown."""
    return [notification.message for notification in app._notifications]
