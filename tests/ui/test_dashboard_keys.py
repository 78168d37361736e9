"""Keys do what the help says (issue 31): j/k in every table, tab between panels, each
panel's footer shows its keys, the palette shows each action's key, and the key table
of docs/dashboard.md is the one the bindings make."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Footer

from board.room import Room
from tests.ui.fakes import FakeActions
from tests.ui.helpers import loaded, wait_for, workers_done
from tui.dashboard import make_app
from tui.dashboard.app import DashboardApp
from tui.dashboard.commands import COMMANDS
from tui.dashboard.keys import markdown_table

DOCS = Path(__file__).parents[2] / "docs" / "dashboard.md"


async def test_j_and_k_move_the_sessions_table_and_enter_opens_that_session(
        fake_room: Room, fake_actions: FakeActions) -> None:
    """The owner's `1 j enter` opened research's detail, not coder's."""
    from tui.dashboard.screens.session_detail import SessionDetailScreen

    app = make_app(fake_room.home, fake_actions, bell=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("1", "j", "j")
        assert screen.sessions_table.selected == "reviewer"
        await pilot.press("k")
        assert screen.sessions_table.selected == "coder"
        await pilot.press("enter")
        await workers_done(app)
        await wait_for(pilot, lambda: isinstance(app.screen, SessionDetailScreen))
        assert app.screen.detail.session.name == "coder"  # type: ignore[attr-defined]


async def test_j_and_k_move_the_watcher_table(fake_room: Room,
                                              fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions, bell=False)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await loaded(pilot)
        watcher = screen.query_one("#watcher")
        await pilot.press("4", "j")
        assert watcher.cursor_row == 1  # type: ignore[attr-defined]
        await pilot.press("k")
        assert watcher.cursor_row == 0  # type: ignore[attr-defined]


async def test_tab_and_shift_tab_go_round_the_panels(team_room: Room,
                                                     fake_actions: FakeActions) -> None:
    """90 columns (the notes in the watcher's place): board → notes → needs you →
    sessions → board, one press each, not one per board column."""
    app = make_app(team_room.home, fake_actions, bell=False)
    async with app.run_test(size=(90, 40)) as pilot:
        screen = await loaded(pilot)

        def panel() -> str:
            focused = app.focused
            assert focused is not None
            return next(node.id for node in (focused, *focused.ancestors)
                        if node.id in ("needs", "sessions", "board", "stream", "watcher"))

        assert panel() == "board"
        seen = []
        for _ in range(4):
            await pilot.press("tab")
            seen.append(panel())
        assert seen == ["stream", "needs", "sessions", "board"]
        assert screen.board.current.status == "todo"  # entered where it was left
        await pilot.press("shift+tab")
        assert panel() == "sessions"
        await pilot.press("shift+tab")
        assert panel() == "needs"


async def test_the_sessions_footer_shows_the_session_keys(fake_room: Room,
                                                          fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions, bell=False)
    async with app.run_test(size=(200, 50)) as pilot:
        await loaded(pilot)
        await pilot.press("1")
        await pilot.pause()
        footer = app.screen.query_one(Footer)
        keys = {key.key for key in footer.query("FooterKey")}  # type: ignore[attr-defined]
        assert {"f", "enter", "z", "L", "s", "t", "r"} <= keys, keys


async def test_the_palette_shows_each_actions_key(fake_room: Room,
                                                  fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions, bell=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        titles = [command.title for command in app.get_system_commands(screen)]
        assert "Move left  (shift+← H)" in titles
        assert "Land  (L)" in titles and "Next panel  (tab)" in titles
        assert all(any(title.startswith(f"{command.title}  (") for title in titles)
                   for command in COMMANDS)


def test_the_docs_key_table_is_the_one_the_bindings_make() -> None:
    """docs/dashboard.md carries `keys.markdown_table()` as it is: add, drop or rename a
    binding and this fails until the table says so too."""
    assert markdown_table(DashboardApp) in DOCS.read_text(encoding="utf-8")


async def test_j_and_k_scroll_the_help_window(fake_room: Room,
                                              fake_actions: FakeActions) -> None:
    from textual.containers import VerticalScroll

    from tui.dashboard.screens.help import HelpScreen

    app = make_app(fake_room.home, fake_actions, bell=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        scroll = app.screen.query_one("#help", VerticalScroll)
        await pilot.press("j", "j", "j")
        await wait_for(pilot, lambda: scroll.scroll_y == 3, what="three lines down")
        await pilot.press("k")
        await wait_for(pilot, lambda: scroll.scroll_y == 2, what="one line up")


async def test_the_notes_footer_shows_the_notes_keys(fake_room: Room,
                                                     fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions, bell=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("3")
        await pilot.pause()
        keys = {key.key for key in app.screen.query_one(Footer).query("FooterKey")}  # type: ignore[attr-defined]
        assert {"slash", "e"} <= keys, keys
        await pilot.press("e")
        assert screen.stream.flips
