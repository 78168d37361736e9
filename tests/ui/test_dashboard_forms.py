"""The dashboard's forms do what their hint says: enter submits from any field, tab moves
to the next one, and nothing is filled in that the form does not show."""

from __future__ import annotations

from board import tasks
from board.db import connect
from board.home import DB_NAME
from board.room import Room
from tests.ui.fakes import FakeActions
from tests.ui.helpers import loaded, settled, workers_done
from tui.dashboard import make_app
from tui.dashboard.prompt import PromptScreen

SIZE = (160, 48)


async def test_enter_in_the_first_field_submits_the_whole_form(
        fake_room: Room, fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("1", "s")
        assert isinstance(app.screen, PromptScreen)
        assert "enter: OK" in str(app.screen.query_one(".prompt-hint").render())
        await pilot.press(*"solo", "enter")
        await workers_done(app)
        assert not isinstance(app.screen, PromptScreen)
        spawned = [call for call in fake_actions.calls if call[0] == "spawn"]
        assert spawned == [("spawn", "solo", {"agent": None, "task": None, "deliver": None})]


async def test_a_new_card_is_never_assigned_to_the_selected_session_unasked(
        fake_room: Room, fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        await pilot.press("1", "down")
        assert screen.sessions_table.selected == "coder"
        await pilot.press("2", "n")
        form = app.screen
        assert isinstance(form, PromptScreen)
        assert all(field.value == "" for field in form.query("Input"))  # nothing hidden
        await pilot.press(*"Unassigned card", "enter")
        await settled(pilot)
        conn = connect(fake_room.home / DB_NAME)
        added = [task for task in tasks.list_tasks(conn) if task.title == "Unassigned card"]
        conn.close()
        assert [task.assignee for task in added] == [None]


async def test_the_spawn_form_has_every_field_the_cli_has_that_matters_here(
        fake_room: Room, fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("1", "s")
        ids = {field.id for field in app.screen.query("Input")}
        assert ids == {"field-name", "field-agent", "field-task", "field-deliver"}
