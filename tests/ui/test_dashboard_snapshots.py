"""Snapshots from fake data (3 sessions, 10 tasks, notes, two alerts, one private entry)."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from board.room import Room
from tests.ui.fakes import FakeActions
from tests.ui.helpers import loaded
from tui.dashboard import make_app


async def ready(pilot: Pilot) -> None:
    """Wait for the snapshot, the preview and the changed-file counts to be drawn."""
    screen = await loaded(pilot)
    await pilot.app.workers.wait_for_complete()
    assert screen.preview.text
    await pilot.pause()


@pytest.mark.parametrize("size", [(160, 48), (100, 30)], ids=["160x48", "100x30"])
def test_dashboard(snap_compare, fake_room: Room, size: tuple[int, int]) -> None:
    app = make_app(fake_room.home, FakeActions())
    assert snap_compare(app, terminal_size=size, run_before=ready)


def test_task_details(snap_compare, fake_room: Room) -> None:
    async def open_details(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.press("enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    app = make_app(fake_room.home, FakeActions())
    assert snap_compare(app, terminal_size=(100, 30), run_before=open_details)


def test_help(snap_compare, fake_room: Room) -> None:
    app = make_app(fake_room.home, FakeActions())
    assert snap_compare(app, terminal_size=(100, 30), press=["question_mark"],
                        run_before=ready)
