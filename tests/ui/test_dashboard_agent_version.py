"""The session detail names the release of the agent the session runs."""

from __future__ import annotations

from textual.widgets import Static

from board import sessions
from board.room import Room
from tests.ui.fakes import FakeActions
from tests.ui.helpers import loaded, wait_for
from tui.dashboard import make_app
from tui.dashboard.screens.session_detail import SessionDetailScreen

PANE = (90, 40)


async def test_the_detail_shows_the_agents_version(team_room: Room,
                                                   fake_actions: FakeActions) -> None:
    sessions.update(team_room.conn, "coder", agent_version="2.1.332")
    app = make_app(team_room.home, fake_actions, bell=False)
    async with app.run_test(size=PANE) as pilot:
        await loaded(pilot)
        await pilot.press("1", "down", "enter")  # coder
        await wait_for(pilot, lambda: isinstance(app.screen, SessionDetailScreen),
                       what="coder's detail")
        await pilot.pause()
        overview = app.screen.query_one("#overview Static", Static)
        shown = "\n".join(overview.render_line(y).text for y in range(overview.region.height))
        assert "2.1.332" in shown, shown
