"""Snapshots from fake data, at the sizes a terminal gives (80×24, 120×40, 200×50) and the
width the dashboard gets beside the panes (90×40): the demo's end state (three done cards,
six empty columns), issue 14's set (3 sessions, one asking a question; 10 tasks in 4
statuses, two with 30-character titles; notes of each kind and delivery state; two
alerts; one private entry), the detail and modal screens, and a refused form.

docs/screenshots.py turns some of these SVGs (the dashboard's own screenshots) into the
PNGs docs/dashboard.md opens with."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from board.room import Room
from tests.ui.fakes import FakeActions
from tests.ui.helpers import loaded, wait_for, workers_done
from tui.dashboard.prompt import PromptScreen

SIZES = [(80, 24), (120, 40), (200, 50)]
SIZE_IDS = ["80x24", "120x40", "200x50"]


async def ready(pilot: Pilot) -> None:
    """Wait for the snapshot, the preview and the changed-file counts to be drawn."""
    await loaded(pilot)
    await workers_done(pilot.app)
    await pilot.pause()


async def demo_ready(pilot: Pilot) -> None:
    """As `ready`, and the done cards' code marks drawn."""
    await ready(pilot)
    screen = pilot.app.screen
    await wait_for(pilot, lambda: len(screen.board.column("done").code) == 3,  # type: ignore[attr-defined]
                   what="the code marks")
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_demo(snap_compare, demo_room: Room, demo_actions: FakeActions,
              size: tuple[int, int]) -> None:
    from tui.dashboard import make_app

    app = make_app(demo_room.home, demo_actions, bell=False)
    assert snap_compare(app, terminal_size=size, run_before=demo_ready)


@pytest.mark.parametrize("size", [(80, 24), (90, 40), (120, 40), (200, 50)],
                         ids=["80x24", "90x40", "120x40", "200x50"])
def test_dashboard(snap_compare, team_room: Room, size: tuple[int, int]) -> None:
    from tui.dashboard import make_app

    app = make_app(team_room.home, FakeActions(), bell=False)
    assert snap_compare(app, terminal_size=size, run_before=ready)


def test_session_detail(snap_compare, team_room: Room) -> None:
    from tui.dashboard import make_app

    async def open_detail(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.press("1", "j", "enter")  # coder
        await workers_done(pilot.app)
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "SessionDetailScreen")
        await pilot.pause()

    app = make_app(team_room.home, FakeActions(), bell=False)
    assert snap_compare(app, terminal_size=(120, 40), run_before=open_detail)


def test_land_confirmation(snap_compare, demo_room: Room, demo_actions: FakeActions) -> None:
    from tui.dashboard import make_app
    from tui.dashboard.screens.confirm import ConfirmScreen

    async def ask_to_land(pilot: Pilot) -> None:
        await demo_ready(pilot)
        await pilot.press("1", "j", "L")  # coder, ready to land
        await workers_done(pilot.app)
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        await pilot.pause()

    app = make_app(demo_room.home, demo_actions, bell=False)
    assert snap_compare(app, terminal_size=(120, 40), run_before=ask_to_land)


def test_refused_form(snap_compare, team_room: Room) -> None:
    from tui.dashboard import make_app

    async def refused(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.press("2", "n", *"Ship the usage endpoint", "tab", *"codr", "enter")
        await workers_done(pilot.app)
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, PromptScreen)
                       and "codr" in str(pilot.app.screen.query_one("#error-assign").render()))
        await pilot.pause()

    app = make_app(team_room.home, FakeActions(), bell=False)
    assert snap_compare(app, terminal_size=(90, 30), run_before=refused)


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
