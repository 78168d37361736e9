"""The board gives its width to cards (issue 31): empty columns are named on one row,
done cards keep their titles and their code chips whole, at every terminal size."""

from __future__ import annotations

import pytest

from board.room import Room
from board.vocabulary import TaskStatus
from tests.ui.fakes import DEMO_TITLES, FakeActions
from tests.ui.helpers import loaded, wait_for
from tui.dashboard import make_app
from tui.dashboard.widgets.card_list import CardList

EMPTIES = "triage 0 · todo 0 · ready 0 · running 0 · blocked 0 · review 0 · archived 0"


def card_lines(column: CardList) -> list[str]:
    return [column.render_line(y).text for y in range(column.size.height)]


def titles_shown(lines: list[str]) -> list[str]:
    """Each card's two title lines joined, as a reader sees them."""
    return [" ".join(" ".join(lines[index:index + 2]).split())
            for index in range(0, len(lines) - 2, 3)]


@pytest.mark.parametrize("size", [(80, 24), (90, 30), (120, 40), (200, 50)],
                         ids=["80x24", "90x30", "120x40", "200x50"])
async def test_done_cards_show_whole_titles_and_chips_with_the_board_key(
        demo_room: Room, demo_actions: FakeActions, size: tuple[int, int]) -> None:
    """The demo's end: six empty columns and done 3. `2` (the board, as the help says)
    lands on the done column, not on an empty one; each done title is shown whole, and
    each chip (✓ nothing to land, ↑ ready to land) too. (At 24 rows two cards show at
    once; the third is a j away.)"""
    app = make_app(demo_room.home, demo_actions, bell=False)
    async with app.run_test(size=size) as pilot:
        screen = await loaded(pilot)
        done = screen.board.column(TaskStatus.DONE)
        await wait_for(pilot, lambda: len(done.code) == 3, what="the code marks")
        await pilot.press("1", "2")
        await pilot.pause()
        assert screen.board.current is done and done.has_focus
        lines = card_lines(done)
        shown = [title for title in titles_shown(lines) if title]
        assert len(shown) >= 2 and shown == list(DEMO_TITLES[:len(shown)]), lines
        assert "#1 ✓ nothing to land" in lines[2] and "#2 ↑ ready to land" in lines[5]
        assert not any("…" in line for line in lines), lines
        strip = str(screen.query_one("#board-empties").render())
        assert strip == EMPTIES
        for status in TaskStatus:
            if status != TaskStatus.DONE and status in screen.board.columns:
                assert screen.query_one(f"#lane-{status}").size.width == 0, status
        assert done.size.width >= size[0] - 4  # the one column with cards has the width


async def test_h_and_l_step_over_empty_columns(team_room: Room) -> None:
    """team_room: todo, running, blocked, review hold cards; triage, ready, done, archived
    are empty. From todo, l goes to running (not the empty ready), h stays put."""
    app = make_app(team_room.home, FakeActions(), bell=False)
    async with app.run_test(size=(90, 30)) as pilot:
        screen = await loaded(pilot)
        assert screen.board.current.status == TaskStatus.TODO
        await pilot.press("l")
        assert screen.board.current.status == TaskStatus.RUNNING
        await pilot.press("h", "h")
        assert screen.board.current.status == TaskStatus.TODO
        assert screen.query_one("#board-empties").render().plain == (  # type: ignore[union-attr]
            "triage 0 · ready 0 · done 0 · archived 0")


async def test_a_narrow_column_keeps_its_chip_and_drops_the_age_first(
        demo_room: Room, demo_actions: FakeActions) -> None:
    """Squeezed to 20 cells, a done card's line keeps `↑ ready to land` whole and gives
    up the age and the assignee instead of cutting the chip (`ready to la…`)."""
    app = make_app(demo_room.home, demo_actions, bell=False)
    async with app.run_test(size=(90, 30)) as pilot:
        screen = await loaded(pilot)
        done = screen.board.column(TaskStatus.DONE)
        await wait_for(pilot, lambda: len(done.code) == 3, what="the code marks")
        done.parent.styles.width = 22  # type: ignore[union-attr]
        await pilot.pause()
        lines = card_lines(done)
        assert lines[5].rstrip() == "#2 ↑ ready to land", lines[5]
        assert lines[2].rstrip() == "#1 ✓ nothing to land", lines[2]


LONG_QUESTION = ("Claude wants to run pytest -q tests/unit in its worktree — Do you want to"
                 " proceed? (1 yes, 2 yes and don't ask again, 3 no)")


async def test_the_needs_you_strip_wraps_a_question_to_a_second_line(
        team_room: Room, fake_actions: FakeActions) -> None:
    """At 90 columns the owner saw `… — Do you want to`: the question is cut no more."""
    from board.db import write
    from tui.dashboard.widgets.needs_you import NeedsYou

    with write(team_room.conn):
        team_room.conn.execute("UPDATE sessions SET status_reason = ? WHERE name = 'reviewer'",
                               (LONG_QUESTION,))
    app = make_app(team_room.home, fake_actions, bell=False)
    async with app.run_test(size=(90, 40)) as pilot:
        screen = await loaded(pilot)
        strip = screen.query_one(NeedsYou)
        lines = strip.render().plain.splitlines()
        assert " ".join(" ".join(lines[:2]).split()).endswith(LONG_QUESTION), lines
        assert len(lines) == 5  # the question on two lines, three more needs on one each
        assert strip.size.height == len(lines)  # all of it shows


async def test_a_board_with_no_cards_keeps_its_focused_column_narrow(
        room: Room, fake_actions: FakeActions) -> None:
    """No cards at all: the ready column keeps the focus (n adds a card there) and stays
    16 cells wide; the strip names the other seven."""
    app = make_app(room.home, fake_actions, bell=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        ready = screen.query_one("#lane-ready")
        assert screen.board.column(TaskStatus.READY).has_focus
        assert ready.outer_size.width == 16
        assert str(screen.query_one("#board-empties").render()) == (
            "triage 0 · todo 0 · ready 0 · running 0 · blocked 0 · review 0 · done 0"
            " · archived 0")


async def test_a_focused_column_whose_last_card_leaves_hands_the_focus_on(
        room: Room, fake_actions: FakeActions) -> None:
    """The demo's start: the ready column has the focus and research's card; the card goes
    to running. The emptied ready column must not keep its 16 cells (half of a narrow
    dashboard, seen by hand at 90 columns): the focus goes to a column with cards."""
    from board import tasks
    from tests.ui.fakes import OPERATOR

    app = make_app(room.home, fake_actions, bell=False)
    async with app.run_test(size=(90, 30)) as pilot:
        screen = await loaded(pilot)
        card = tasks.add(room.conn, OPERATOR, "Gather usage data", status="ready")
        ready = screen.board.column(TaskStatus.READY)
        await wait_for(pilot, lambda: ready.ids == [card.id], what="the card in ready")
        ready.focus()
        await pilot.pause()
        tasks.move(room.conn, OPERATOR, card.id, TaskStatus.RUNNING)
        running = screen.board.column(TaskStatus.RUNNING)
        await wait_for(pilot, lambda: running.ids == [card.id], what="the card in running")
        await wait_for(pilot, lambda: running.has_focus, what="the focus on running")
        await pilot.pause()
        assert screen.query_one("#lane-ready").size.width == 0
        assert "ready 0" in str(screen.query_one("#board-empties").render())
