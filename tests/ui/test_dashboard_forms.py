"""The dashboard's forms do what their hint says: enter submits from any field, tab moves
to the next one, and nothing is filled in that the form does not show."""

from __future__ import annotations

from textual import events
from textual.widgets import Input, Label

from board import tasks
from board.db import connect
from board.home import DB_NAME
from board.room import Room
from tests.ui.fakes import FakeActions
from tests.ui.helpers import loaded, notifications, settled, wait_for, workers_done
from tui.dashboard import make_app
from tui.dashboard.app import DashboardApp
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


def typed(app: DashboardApp) -> dict[str, str]:
    return {field.id or "": field.value for field in app.screen.query(Input)}


def error_under(app: DashboardApp, name: str) -> str:
    return str(app.screen.query_one(f"#error-{name}", Label).render())


async def test_a_refused_new_card_keeps_its_form_and_says_why_under_the_field(
        fake_room: Room, fake_actions: FakeActions) -> None:
    """The owner typed assignee `codr`: the form vanished behind a toast. It stays, with
    the title and the name as typed and the store's reason under the assignee."""
    app = make_app(fake_room.home, fake_actions, bell=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("2", "n", *"Ship it", "tab", *"codr", "enter")
        await workers_done(app)
        await wait_for(pilot, lambda: "codr" in error_under(app, "assign"),
                       what="the reason under the assignee")
        assert isinstance(app.screen, PromptScreen)
        assert typed(app)["field-title"] == "Ship it" and typed(app)["field-assign"] == "codr"
        assert "unknown session" in error_under(app, "assign")
        assert error_under(app, "title") == ""
        assert app.focused is app.screen.query_one("#field-assign")
        assert not notifications(app)  # the form says it; no toast that vanishes
        await pilot.press("backspace", *"er", "enter")  # fixed: the form closes
        await settled(pilot)
        await wait_for(pilot, lambda: not isinstance(app.screen, PromptScreen))
        conn = connect(fake_room.home / DB_NAME)
        added = [task for task in tasks.list_tasks(conn) if task.title == "Ship it"]
        conn.close()
        assert [task.assignee for task in added] == ["coder"]


async def test_a_refused_note_keeps_its_text(fake_room: Room,
                                             fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions, bell=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("m", *"a long note I do not want to type twice", "shift+tab",
                          "ctrl+u", *"nobody", "enter")
        await workers_done(app)
        await wait_for(pilot, lambda: "nobody" in error_under(app, "to"),
                       what="the reason under the recipient")
        assert typed(app)["field-text"] == "a long note I do not want to type twice"


async def test_bad_task_ids_are_refused_under_their_field_before_anything_is_sent(
        fake_room: Room, fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions, bell=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("2", "n", *"Later", "tab", "tab", *"3 x", "enter")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        assert "not a task id: 'x'" in error_under(app, "after")
        assert typed(app)["field-title"] == "Later"


async def test_session_names_complete_as_they_are_typed(fake_room: Room,
                                                        fake_actions: FakeActions) -> None:
    """`cod` then → is `coder`, in the new card's assignee and a note's recipient."""
    app = make_app(fake_room.home, fake_actions, bell=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("2", "n", "tab", *"cod")
        await wait_for(pilot, lambda: app.screen.query_one("#field-assign",
                                                           Input)._suggestion == "coder",
                       what="the suggestion")
        await pilot.press("right")
        assert typed(app)["field-assign"] == "coder"
        await pilot.press("escape", "m", "shift+tab", "ctrl+u", *"rev")
        await wait_for(pilot, lambda: app.screen.query_one("#field-to",
                                                           Input)._suggestion == "reviewer",
                       what="the suggestion")
        await pilot.press("right")
        assert typed(app)["field-to"] == "reviewer"


async def test_keys_typed_in_a_burst_land_in_the_form_in_order(
        fake_room: Room, fake_actions: FakeActions) -> None:
    """Keys queued all at once behind `n` (a fast typist, a paste) reach the title field
    and, after tab, the assignee: none is lost on a form not yet shown."""
    app = make_app(fake_room.home, fake_actions, bell=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("2")
        for key in ["n", *"Hello", "tab", *"cod"]:
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen)
                       and typed(app).get("field-assign") == "cod",
                       what="the burst in the form")
        assert typed(app)["field-title"] == "Hello"


async def test_the_spawn_form_refuses_a_bad_or_taken_name_under_it(
        fake_room: Room, fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions, bell=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("1", "s", *"Tester", "tab", "tab", *"write tests", "enter")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        assert "invalid session name 'Tester'" in error_under(app, "name")
        assert typed(app)["field-task"] == "write tests"
        assert app.focused is app.screen.query_one("#field-name")  # back where the fault is
        await pilot.press("ctrl+u", *"coder", "enter")
        await pilot.pause()
        assert "there is a session 'coder' already" in error_under(app, "name")
        await pilot.press("ctrl+u", *"tester", "tab", "tab", "tab", *"mail", "enter")
        await pilot.pause()
        assert "deliver is type or inbox, not 'mail'" in error_under(app, "deliver")
        assert error_under(app, "name") == ""
        await pilot.press("ctrl+u", *"inbox", "enter")
        await workers_done(app)
        assert ("spawn", "tester", {"agent": None, "task": "write tests",
                                    "deliver": "inbox"}) in fake_actions.calls
