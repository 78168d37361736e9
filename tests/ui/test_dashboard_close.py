"""`q` asks before it closes the dashboard: a stray key never takes it away."""

from __future__ import annotations

from board.room import Room
from tests.ui.fakes import FakeActions
from tests.ui.helpers import loaded
from tui.dashboard import make_app
from tui.dashboard.screens.confirm import ConfirmScreen

SIZE = (160, 48)


async def test_q_asks_and_n_keeps_the_dashboard(fake_room: Room,
                                                fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "room keeps running" in str(app.screen.query_one("#confirm-detail").render())
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is screen and app.is_running


async def test_q_then_y_closes_it(fake_room: Room, fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("q", "y")
        await pilot.pause()
        assert not app.is_running
