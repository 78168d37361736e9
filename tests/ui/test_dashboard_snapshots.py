"""Snapshots from fake data (issue 14's set: 3 sessions, one asking a question; 10 tasks
in 4 statuses, two with 30-character titles; notes of each kind and delivery state; two
alerts; one private entry), at the widths the dashboard really gets."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from board.room import Room
from tests.ui.fakes import FakeActions
from tests.ui.helpers import loaded, workers_done


async def ready(pilot: Pilot) -> None:
    """Wait for the snapshot, the preview and the changed-file counts to be drawn."""
    await loaded(pilot)
    await workers_done(pilot.app)
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (90, 40), (160, 48), (220, 60)],
                         ids=["80x24", "90x40", "160x48", "220x60"])
def test_dashboard(snap_compare, team_room: Room, size: tuple[int, int]) -> None:
    from tui.dashboard import make_app

    app = make_app(team_room.home, FakeActions(), bell=False)
    assert snap_compare(app, terminal_size=size, run_before=ready)


def test_task_details(snap_compare, team_room: Room) -> None:
    from tui.dashboard import make_app

    async def open_details(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.press("enter")
        await workers_done(pilot.app)
        await pilot.pause()

    app = make_app(team_room.home, FakeActions(), bell=False)
    assert snap_compare(app, terminal_size=(90, 40), run_before=open_details)


def test_help(snap_compare, team_room: Room) -> None:
    from tui.dashboard import make_app

    app = make_app(team_room.home, FakeActions(), bell=False)
    assert snap_compare(app, terminal_size=(90, 40), press=["question_mark"],
                        run_before=ready)
