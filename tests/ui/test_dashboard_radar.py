"""The conflict radar on the dashboard: a badge on the session row and its running card,
and the conflict (other side, files, both sides' lines) in the session's detail."""

from __future__ import annotations

from textual.widgets import Static

from board import conflicts, tasks
from board.conflicts import ConflictFile
from board.room import Room
from tests.ui.fakes import FakeActions
from tests.ui.helpers import loaded, wait_for
from tui.dashboard import make_app
from tui.dashboard.screens.session_detail import SessionDetailScreen
from tui.dashboard.widgets.card_list import CardList
from tui.dashboard.widgets.sessions_table import SessionsTable

PANE = (90, 40)


def text_of(widget: Static) -> str:
    return "\n".join(widget.render_line(y).text for y in range(widget.region.height))


async def test_a_predicted_conflict_is_badged_and_listed_in_the_detail(
        team_room: Room, fake_actions: FakeActions) -> None:
    conn = team_room.conn
    assert any(t.status == "running" for t in tasks.list_tasks(conn, assignee="coder"))
    conflicts.found(conn, "coder", "research",
                    (ConflictFile("src/app.py", ((3, 5),), ((4, 4),)),),
                    a_commits=("abc1234",), b_commits=("uncommitted",))
    app = make_app(team_room.home, fake_actions, bell=False)
    async with app.run_test(size=PANE) as pilot:
        await loaded(pilot)
        table = app.screen.query_one(SessionsTable)
        await wait_for(pilot, lambda: "⚠1" in str(table.get_row("coder")[0]),
                       what="coder's badge")
        assert "⚠" not in str(table.get_row("reviewer")[0])
        column = app.screen.query_one("#column-running", CardList)
        assert column.conflicted == frozenset({"coder", "research"})
        assert any(" ⚠ conflict @coder" in column.render_line(y).text
                   for y in range(column.region.height))
        await pilot.press("1", "down", "enter")  # coder
        await wait_for(pilot, lambda: isinstance(app.screen, SessionDetailScreen),
                       what="coder's detail")
        await pilot.pause()
        shown = text_of(app.screen.query_one("#overview Static", Static))
        assert "conflict radar" in shown and "⚠ research" in shown
        assert "src/app.py: yours 3-5, theirs 4" in shown
