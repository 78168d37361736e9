"""Deltas merged while the screen is busy leave the view as applying each in turn would:
every stream line in order, the newest of each card, the newest panel tables."""

from __future__ import annotations

import threading

from board.attention import Delivery
from board.models import Task
from board.vocabulary import DeliveryState, TaskStatus
from tui.dashboard.coalesce import DeltaBox, merge
from tui.dashboard.feed import RoomDelta, SessionRow, StreamItem


def task(task_id: int, status: str, title: str = "t") -> Task:
    return Task(task_id, title, status, None, (), None)


def item(number: int) -> StreamItem:
    return StreamItem(float(number), "note", "coder", "reviewer", f"note {number}", number)


def apply(shown: dict[int, Task], delta: RoomDelta) -> None:
    """What the board does with a delta (tasks only)."""
    if delta.initial:
        shown.clear()
    for task_id in delta.removed_tasks:
        shown.pop(task_id, None)
    shown.update((card.id, card) for card in delta.tasks)


def test_a_burst_merges_into_the_final_state_with_every_line() -> None:
    deltas = [
        RoomDelta(last_event=1, tasks=[task(1, TaskStatus.TODO), task(2, TaskStatus.TODO)],
                  stream=[item(1)], last_note=1),
        RoomDelta(last_event=2, tasks=[task(1, TaskStatus.RUNNING)], removed_tasks={2},
                  stream=[item(2), item(3)], last_note=3, changed_sessions={"coder"}),
        RoomDelta(last_event=3, tasks=[task(3, TaskStatus.READY)], stream=[item(4)],
                  last_note=4, changed_sessions={"reviewer"}),
        RoomDelta(last_event=4, tasks=[task(1, TaskStatus.DONE, "final")], last_note=4),
    ]
    merged = deltas[0]
    for delta in deltas[1:]:
        merged = merge(merged, delta)
    one_by_one: dict[int, Task] = {}
    for delta in deltas:
        apply(one_by_one, delta)
    at_once: dict[int, Task] = {}
    apply(at_once, merged)
    assert at_once == one_by_one == {1: task(1, TaskStatus.DONE, "final"),
                                     3: task(3, TaskStatus.READY)}
    assert merged.removed_tasks == {2}
    assert [line.ref for line in merged.stream] == [1, 2, 3, 4]
    assert (merged.last_event, merged.last_note) == (4, 4)
    assert merged.changed_sessions == {"coder", "reviewer"}


def test_a_card_removed_then_back_is_shown_not_dropped() -> None:
    merged = merge(RoomDelta(last_event=1, removed_tasks={5}),
                   RoomDelta(last_event=2, tasks=[task(5, TaskStatus.TODO)]))
    assert merged.removed_tasks == set() and [card.id for card in merged.tasks] == [5]
    merged = merge(RoomDelta(last_event=1, tasks=[task(5, TaskStatus.TODO)]),
                   RoomDelta(last_event=2, removed_tasks={5}))
    assert merged.tasks == [] and merged.removed_tasks == {5}


def test_the_snapshot_stays_a_snapshot_with_later_changes_in_it() -> None:
    snapshot = RoomDelta(last_event=10, initial=True,
                         tasks=[task(1, TaskStatus.TODO), task(2, TaskStatus.TODO)],
                         stream=[item(1)], sessions=[])
    merged = merge(snapshot, RoomDelta(last_event=11, tasks=[task(2, TaskStatus.DONE)],
                                       removed_tasks={1}, stream=[item(2)]))
    assert merged.initial and merged.removed_tasks == set()
    assert merged.tasks == [task(2, TaskStatus.DONE)]
    assert [line.ref for line in merged.stream] == [1, 2]
    assert merged.sessions == []  # the snapshot's table, no newer one came


def test_the_newest_panel_tables_win_and_deliveries_add_up() -> None:
    older_rows: list[SessionRow] = []
    newer_rows: list[SessionRow] = []
    queued = [Delivery("reviewer", DeliveryState.QUEUED)]
    typed = [Delivery("reviewer", DeliveryState.TYPED)]
    merged = merge(
        RoomDelta(last_event=1, sessions=older_rows, alerts=[], held=[],
                  deliveries={1: queued, 2: queued}, sessions_dirty=True),
        RoomDelta(last_event=2, sessions=newer_rows, deliveries={2: typed},
                  alerts_dirty=True))
    assert merged.sessions is newer_rows
    assert merged.alerts == [] and merged.held == []  # kept: the newer delta had none
    assert merged.deliveries == {1: queued, 2: typed}
    assert merged.sessions_dirty and merged.alerts_dirty and not merged.deliveries_dirty
    assert merge(RoomDelta(last_event=1), RoomDelta(last_event=2)).deliveries is None


def test_the_box_tells_once_per_take_and_loses_nothing_between_threads() -> None:
    told = threading.Semaphore(0)
    box = DeltaBox(told.release)
    per_thread = 400

    def put_many(start: int) -> None:
        for number in range(start, start + per_thread):
            box.put(RoomDelta(last_event=number, stream=[item(number)]))

    threads = [threading.Thread(target=put_many, args=(start,))
               for start in (1, 1 + per_thread)]
    for thread in threads:
        thread.start()
    seen: list[int] = []
    takes = 0
    while len(seen) < 2 * per_thread:
        assert told.acquire(timeout=10), "the box did not say it held something"
        delta = box.take()
        assert delta is not None  # each call means one full box
        takes += 1
        seen += [line.ref for line in delta.stream if line.ref is not None]
    for thread in threads:
        thread.join(timeout=10)
    assert box.take() is None and not told.acquire(timeout=0)
    assert sorted(seen) == list(range(1, 2 * per_thread + 1))
    for start in (1, 1 + per_thread):  # each thread's lines stay in its order
        mine = [ref for ref in seen if start <= ref < start + per_thread]
        assert mine == sorted(mine)
    assert takes <= 2 * per_thread
