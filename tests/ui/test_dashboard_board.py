"""Board keys change the store exactly as the CLI's task commands do."""

from __future__ import annotations

from pathlib import Path

from board import tasks
from board.db import connect
from board.home import DB_NAME
from board.room import Room
from tests.ui.fakes import FakeActions
from tests.ui.helpers import loaded, notifications, settled, wait_for, workers_done
from tui.dashboard import make_app
from tui.dashboard.screens.confirm import ConfirmScreen
from tui.dashboard.screens.task_detail import TaskDetailScreen

SIZE = (160, 48)


def task_status(home: Path, task_id: int) -> tasks.Task:
    conn = connect(home / DB_NAME)  # a separate connection, as another process would see it
    try:
        return tasks.get(conn, task_id)
    finally:
        conn.close()


async def test_shift_right_moves_the_card_and_focus_follows(fake_room: Room,
                                                            fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        assert screen.board.current_task.id == 1  # focus starts on the ready column
        await pilot.press("shift+right")
        await settled(pilot)
        assert task_status(fake_room.home, 1).status == "running"
        assert screen.board.current.status == "running"
        assert screen.board.current_task.id == 1
        await pilot.press("L", "enter")  # into blocked: the reason is asked, empty allowed
        await settled(pilot)
        assert task_status(fake_room.home, 1).status == "blocked"
        assert task_status(fake_room.home, 1).block_reason == "no reason given"
        await pilot.press("H", "shift+left")
        await settled(pilot)
        assert task_status(fake_room.home, 1).status == "ready"


async def test_a_refused_move_is_a_notification(fake_room: Room,
                                                fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        await pilot.press("h")  # the todo column: task 2 waits on task 1
        assert screen.board.current_task.id == 2
        await pilot.press("shift+right")
        await settled(pilot)
        assert task_status(fake_room.home, 2).status == "todo"
        assert any("waits on unfinished" in text for text in notifications(app))


async def test_done_with_summary_releases_dependents(fake_room: Room,
                                                     fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        await pilot.press("d")
        await pilot.press(*"data ready", "enter")
        await settled(pilot)
        done = task_status(fake_room.home, 1)
        assert (done.status, done.summary) == ("done", "data ready")
        assert task_status(fake_room.home, 2).status == "ready"  # released, as `task done`
        assert screen.board.tasks[2].status == "ready"
        assert 2 in screen.board.columns["ready"]


async def test_moving_a_done_card_right_archives_it_only_once_confirmed(
        fake_room: Room, fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        await pilot.press("d", *"data ready", "enter")
        await settled(pilot)
        assert screen.board.current.status == "done" and screen.board.current_task.id == 1
        await pilot.press("L")  # on the board L moves right: past done is archived
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question == "Archive task #1?"
        await pilot.press("n")
        await settled(pilot)
        assert task_status(fake_room.home, 1).status == "done"
        await pilot.press("shift+right", "y")
        await settled(pilot)
        assert task_status(fake_room.home, 1).status == "archived"


async def test_block_archive_and_assign(fake_room: Room, fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        await pilot.press("b", *"waiting on ops", "enter")
        await settled(pilot)
        blocked = task_status(fake_room.home, 1)
        assert (blocked.status, blocked.block_reason) == ("blocked", "waiting on ops")
        assert screen.board.current.status == "blocked"  # focus followed the card
        await pilot.press("left", "h")  # back to the ready column: task 5 only
        assert screen.board.current.status == "ready"
        assert screen.board.current_task.id == 5
        await pilot.press("a", *"coder", "enter")
        await settled(pilot)
        assert task_status(fake_room.home, 5).assignee == "coder"
        await pilot.press("x")  # it asks first: no is no
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settled(pilot)
        assert task_status(fake_room.home, 5).status == "ready"
        await pilot.press("x", "y")
        await settled(pilot)
        assert task_status(fake_room.home, 5).status == "archived"


async def test_new_card_and_details(fake_room: Room, fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        await pilot.press("n", *"Write changelog", "tab", *"research", "tab", *"1", "tab",
                          *"for 0.1", "enter")
        await settled(pilot)
        conn = connect(fake_room.home / DB_NAME)
        added = [task for task in tasks.list_tasks(conn) if task.title == "Write changelog"]
        conn.close()
        assert len(added) == 1
        new = added[0]
        assert (new.status, new.assignee, new.parents, new.body) == ("todo", "research", (1,),
                                                                    "for 0.1")
        assert new.id in screen.board.columns["todo"]
        await pilot.press("enter")  # details of the focused card (task 1)
        await workers_done(app)
        await pilot.pause()
        assert isinstance(app.screen, TaskDetailScreen)
        assert app.screen.task_record.comments[0].body == "use last month's logs"
        assert app.screen.task_record.children == (2, new.id)
        await pilot.press("escape")
        assert app.screen is screen


async def test_palette_offers_every_action_and_runs_it(fake_room: Room,
                                                      fake_actions: FakeActions) -> None:
    from tui.dashboard.commands import COMMANDS

    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        titles = {command.title.split("  (")[0]  # "Archive  (x)": the title, then its key
                  for command in app.get_system_commands(screen)}
        assert {command.title for command in COMMANDS} <= titles
        await pilot.press("ctrl+p", *"Archive")
        await pilot.pause(0.3)  # the palette searches asynchronously
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen),
                       what="archiving asks first, from the palette too")
        await pilot.press("y")
        await settled(pilot)
        assert task_status(fake_room.home, 1).status == "archived"


async def test_comment_on_a_card(fake_room: Room, fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        card = screen.board.current_task.id
        before = tasks.get(fake_room.conn, card).comments
        await pilot.press("c", *"looks good, ship it", "enter")
        await settled(pilot)
        after = tasks.get(fake_room.conn, card).comments
        assert after[: len(before)] == before
        assert [(c.author, c.body) for c in after[len(before):]] == [
            ("operator", "looks good, ship it")]


async def test_moving_a_card_into_blocked_asks_why(fake_room: Room,
                                                   fake_actions: FakeActions) -> None:
    from tui.dashboard.prompt import PromptScreen

    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("shift+right")  # ready → running
        await settled(pilot)
        await pilot.press("shift+right")
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("escape")  # cancelled: it stays where it was
        await settled(pilot)
        assert task_status(fake_room.home, 1).status == "running"
        await pilot.press("shift+right", *"waiting on the API key", "enter")
        await settled(pilot)
        task = task_status(fake_room.home, 1)
        assert (task.status, task.block_reason) == ("blocked", "waiting on the API key")
        # Both moves are in the stream, the block once, with its reason.
        screen = app.screen
        lines = [item.text for item in screen.stream.items if item.ref == 1
                 and item.text.startswith("task #1")]
        assert lines[-2:] == ["task #1 ready → running", "task #1 blocked: waiting on the API key"]
