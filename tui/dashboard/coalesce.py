"""Deltas from the tail thread, merged while the screen is busy (no Textual in here).

The tail reads a delta every few milliseconds under load; drawing each one costs the
screen more than reading it. So the tail puts its deltas here and the screen is told
only when the box goes from empty to full; by the time the screen takes the box, every
delta put since is merged into one, and one redraw shows them all. Merging keeps
everything: all stream items in order, the newest row of each task, the newest whole
panel tables, every changed session.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from tui.dashboard.feed import RoomDelta


def merge(older: RoomDelta, newer: RoomDelta) -> RoomDelta:
    """One delta that leaves the view as applying `older` then `newer` would."""
    if newer.initial:  # a fresh snapshot holds everything already
        return newer
    tasks = {task.id: task for task in older.tasks}
    for task_id in newer.removed_tasks:
        tasks.pop(task_id, None)
    tasks.update((task.id, task) for task in newer.tasks)
    initial = older.initial or newer.initial
    removed = set() if initial else (older.removed_tasks | newer.removed_tasks) - tasks.keys()
    deliveries = None if older.deliveries is None and newer.deliveries is None else {
        **(older.deliveries or {}), **(newer.deliveries or {})}
    return RoomDelta(
        last_event=max(older.last_event, newer.last_event), initial=initial,
        tasks=sorted(tasks.values(), key=lambda task: task.id) if initial
        else list(tasks.values()),
        removed_tasks=removed, stream=[*older.stream, *newer.stream],
        sessions=newer.sessions if newer.sessions is not None else older.sessions,
        alerts=newer.alerts if newer.alerts is not None else older.alerts,
        changed_sessions=older.changed_sessions | newer.changed_sessions,
        last_note=max(older.last_note, newer.last_note),
        held=newer.held if newer.held is not None else older.held,
        deliveries=deliveries,
        sessions_dirty=older.sessions_dirty or newer.sessions_dirty,
        alerts_dirty=older.alerts_dirty or newer.alerts_dirty,
        deliveries_dirty=older.deliveries_dirty or newer.deliveries_dirty,
    )


class DeltaBox:
    """Holds the deltas not yet shown, merged; `notify` is called (from the putting
    thread) each time the box goes from empty to full, so one call per `take`."""

    def __init__(self, notify: Callable[[], object]) -> None:
        self._notify = notify
        self._lock = threading.Lock()
        self._pending: RoomDelta | None = None

    def put(self, delta: RoomDelta) -> None:
        """Add a delta (any thread); the screen hears of it once until it takes the box."""
        with self._lock:
            waiting = self._pending
            self._pending = delta if waiting is None else merge(waiting, delta)
        if waiting is None:
            self._notify()

    @property
    def waiting_until(self) -> int | None:
        """The newest event id put and not yet taken (None: the box is empty)."""
        with self._lock:
            return None if self._pending is None else self._pending.last_event

    def take(self) -> RoomDelta | None:
        """Everything put since the last take, as one delta (None: nothing)."""
        with self._lock:
            delta, self._pending = self._pending, None
        return delta
