"""What the dashboard shows stays true: ages move with the clock, keys that are listed
do something in the layout at hand, and modals say how to leave them."""

from __future__ import annotations

import time

import pytest

from board.room import Room
from tests.ui.fakes import BASE_TIME, FakeActions
from tests.ui.helpers import loaded
from tui.dashboard import format, make_app

SIZE = (160, 48)


async def wait_for(pilot, condition, timeout: float = 5.0) -> None:
    """Let the app run until `condition()` holds (a deadline, not a fixed sleep)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.05)


async def test_the_active_column_ages_with_the_clock(fake_room: Room, fake_actions: FakeActions,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        table = screen.sessions_table
        name = table.selected
        before = str(table.get_cell(name, "active"))
        monkeypatch.setattr(format, "now", lambda: BASE_TIME + 3 * 86400)  # three days on
        await wait_for(pilot, lambda: str(table.get_cell(name, "active")) != before)
        assert str(table.get_cell(name, "active")).endswith("d")


async def test_the_palette_screenshot_saves_in_the_room(fake_room: Room,
                                                        fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        commands = {command.title: command for command in app.get_system_commands(screen)}
        assert "Quit" not in commands and "Close the dashboard  (q)" in commands
        commands["Screenshot"].callback()
        await pilot.pause()
        saved = list((fake_room.home / "screenshots").glob("*.svg"))
        assert len(saved) == 1 and "<svg" in saved[0].read_text()


async def test_at_90_columns_4_shows_the_watcher_in_the_notes_place(
        fake_room: Room, fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=(90, 40)) as pilot:
        screen = await loaded(pilot)
        watcher, stream = screen.query_one("#watcher"), screen.query_one("#stream")
        assert not watcher.display or watcher.size.width == 0
        await pilot.press("4")
        await pilot.pause()
        assert watcher.has_focus and watcher.size.width > 40 and stream.size.width == 0
        await pilot.press("3")
        await pilot.pause()
        assert stream.has_focus and stream.size.width > 40 and watcher.size.width == 0


@pytest.mark.parametrize("keys", [("1", "enter"), ("2", "enter"), ("G",), ("question_mark",)])
async def test_every_modal_shows_its_keys(fake_room: Room, fake_actions: FakeActions,
                                          keys: tuple[str, ...]) -> None:
    from textual.widgets import Footer

    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        await pilot.press(*keys)
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: app.screen is not screen)
        await pilot.pause()
        footer = app.screen.query_one(Footer)
        shown = " ".join(str(key.render()) for key in footer.query("FooterKey"))
        assert "Close" in shown, shown
        if keys == ("1", "enter"):  # the session detail's tabs
            assert all(tab in shown for tab in ("Overview", "Diff", "Inbox", "Notebook"))


def test_an_inbox_body_keeps_its_indent_when_it_wraps() -> None:
    from rich.console import Console

    from tui.dashboard.screens.session_detail import _indented

    console = Console(width=40, record=True)
    console.print(_indented("one " * 30 + "\nsecond paragraph"))
    lines = console.export_text().rstrip("\n").splitlines()
    assert len(lines) > 3 and all(line.startswith("  ") and line.strip() for line in lines)
