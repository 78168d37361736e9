"""The dashboard at the width it gets beside the panes (issue 14): collapsed columns,
whole titles, the needs-you strip, a readable note stream."""

from __future__ import annotations

import threading
from pathlib import Path

from board import sessions, tasks
from board.db import connect
from board.home import DB_NAME
from board.room import Room
from tests.ui.fakes import LONG_TITLES, QUESTION, FakeActions
from tests.ui.helpers import loaded, settled, wait_for, workers_done
from tui.dashboard import make_app
from tui.dashboard.widgets.card_list import CardList
from tui.dashboard.widgets.needs_you import NeedsYou

PANE = (90, 40)  # what `bullpen up` gives the dashboard on a 200-column screen


def status_of(home: Path, task_id: int) -> str:
    conn = connect(home / DB_NAME)  # a separate connection, as another process would see it
    try:
        return tasks.get(conn, task_id).status
    finally:
        conn.close()


def column_text(column: CardList) -> str:
    return "\n".join(column.render_line(y).text for y in range(column.size.height))


async def test_whole_titles_and_collapsed_columns_at_90(team_room: Room) -> None:
    app = make_app(team_room.home, FakeActions(), bell=False)
    async with app.run_test(size=PANE) as pilot:
        screen = await loaded(pilot)
        lanes = {status: screen.query_one(f"#lane-{status}") for status in screen.board.columns}
        empty = [status for status, ids in screen.board.columns.items() if not ids]
        assert set(empty) == {"triage", "ready", "done", "archived"}
        assert all(lanes[status].size.width <= 4 for status in empty)
        assert all(lanes[status].size.width >= 16 for status in lanes if status not in empty)
        shown = " ".join(column_text(screen.board.column(status)).replace("\n", " ")
                         for status in ("todo", "running"))
        for title in LONG_TITLES:
            assert " ".join(title.split()) in " ".join(shown.split()), title


async def test_moves_into_and_out_of_collapsed_columns(team_room: Room) -> None:
    app = make_app(team_room.home, FakeActions(), bell=False)
    async with app.run_test(size=PANE) as pilot:
        screen = await loaded(pilot)
        assert screen.board.current.status == "todo"  # ready is empty: the first with cards
        await pilot.press("end")  # task 6, which waits on nothing
        assert screen.board.current_task.id == 6
        await pilot.press("shift+right")
        await settled(pilot)
        assert status_of(team_room.home, 6) == "ready"
        ready = screen.query_one("#lane-ready")
        assert screen.board.current.status == "ready" and screen.board.current_task.id == 6
        assert ready.size.width > 4  # it opened: it has a card, and the focus
        await pilot.press("shift+left", "shift+left")  # back to todo, then into triage
        await settled(pilot)
        assert status_of(team_room.home, 6) == "triage"
        assert screen.board.current.status == "triage"
        await pilot.press("shift+right")
        await settled(pilot)
        assert status_of(team_room.home, 6) == "todo"
        await pilot.pause()
        assert screen.query_one("#lane-triage").size.width <= 4  # empty again: collapsed


async def test_needs_you_strip_keys_and_status_line(team_room: Room,
                                                    fake_actions: FakeActions) -> None:
    app = make_app(team_room.home, fake_actions, bell=False)
    async with app.run_test(size=PANE) as pilot:
        screen = await loaded(pilot)
        strip = screen.query_one(NeedsYou)
        kinds = [need.kind for need in strip.needs]
        assert kinds == ["input", "held", "blocked", "alert"]
        assert QUESTION in strip.needs[0].text
        await wait_for(pilot, lambda: fake_actions.attention[-1:] == [4],
                       what="the count in the tmux status line")
        await pilot.press("g")  # the strip takes the focus on its first need
        assert strip.has_focus and strip.cursor == 0
        await pilot.press("enter")
        await workers_done(app)
        assert ("focus", "reviewer", {}) in fake_actions.calls
        await pilot.press("g", "g", "enter")  # the blocked card: the board goes to it
        assert screen.board.current_task.id == 7 and screen.board.current.has_focus
        sessions.set_status(team_room.conn, "reviewer", "working")
        await wait_for(pilot, lambda: [n.kind for n in strip.needs] == ["held", "blocked",
                                                                         "alert"],
                       what="the answered question to leave the strip")
        await wait_for(pilot, lambda: fake_actions.attention[-1:] == [3],
                       what="the status line to count 3")


async def test_the_coordinators_trouble_heads_the_strip_until_it_clears(
        team_room: Room, fake_actions: FakeActions) -> None:
    """What `bullpen ls` prints as "coordinator: store not writable — …" heads the strip,
    from the first look, and leaves it when the coordinator reports it can write again."""
    trouble = "store not writable — database or disk is full"
    fake_actions.coordinator = trouble
    app = make_app(team_room.home, fake_actions, bell=False)
    async with app.run_test(size=PANE) as pilot:
        screen = await loaded(pilot)
        strip = screen.query_one(NeedsYou)
        await wait_for(pilot, lambda: [n.kind for n in strip.needs][:1] == ["coordinator"],
                       what="the coordinator's trouble in the strip")
        assert [n.kind for n in strip.needs] == ["coordinator", "input", "held", "blocked",
                                                 "alert"]
        first = strip.render().plain.splitlines()[0]
        assert "coordinator" in first and trouble in first, first
        await wait_for(pilot, lambda: fake_actions.attention[-1:] == [5],
                       what="the tmux status line to count it")
        fake_actions.coordinator = None  # space came back: the coordinator says "ok"
        screen.jobs.keep_coordinator()  # what the dashboard runs every few seconds
        await wait_for(pilot, lambda: "coordinator" not in [n.kind for n in strip.needs],
                       what="the trouble to leave the strip")


async def test_a_new_need_rings_the_bell_once(team_room: Room) -> None:
    app = make_app(team_room.home, FakeActions(), bell=True)
    rings: list[bool] = []
    app.bell = lambda: rings.append(True)  # type: ignore[method-assign]
    async with app.run_test(size=PANE) as pilot:
        screen = await loaded(pilot)
        assert rings == []  # what already waited at start does not ring
        sessions.set_status(team_room.conn, "coder", "needs_input")
        await wait_for(pilot, lambda: any(n.session == "coder" and n.kind == "input"
                                          for n in screen.query_one(NeedsYou).needs),
                       what="coder in the strip")
        tasks.add(team_room.conn, team_room.caller, "unrelated")  # the strip redraws
        await settled(pilot)
        assert rings == [True]


async def test_status_flips_hidden_until_toggled(team_room: Room) -> None:
    app = make_app(team_room.home, FakeActions(), bell=False)
    async with app.run_test(size=PANE) as pilot:
        screen = await loaded(pilot)
        sessions.set_status(team_room.conn, "research", "working")
        await settled(pilot)
        flips = [item for item in screen.stream.items if item.flip]
        assert [item.text for item in flips] == ["is working"]
        assert not any(item.flip for item in screen.stream.shown)
        await pilot.press("e")
        assert [item.text for item in screen.stream.shown if item.flip] == ["is working"]
        await pilot.press("e")
        assert not any(item.flip for item in screen.stream.shown)


def stream_text(stream) -> str:  # noqa: ANN001 - a NoteStream
    return "\n".join(stream.render_line(y).text for y in range(stream.content_region.height))


async def test_stream_shows_ids_replies_and_delivery_states(team_room: Room) -> None:
    app = make_app(team_room.home, FakeActions(), bell=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("1", "slash")  # research's notes only
        text = stream_text(screen.stream)
        assert "coder → research #2 re #1 · typed" in text
        assert "  I can start with /usage and leave /billing for later." in text  # line 2
        assert "research → coder #4 handoff · handed" in text
        assert "operator → all #3 · handed 1 · queued 1 · read 1" in text
        await pilot.press("slash", "down", "down", "slash")  # now reviewer's
        text = stream_text(screen.stream)
        assert "coder → reviewer #6 · held: not at its prompt" in text
        assert "bullpen → reviewer #9 alert · queued" in text


async def test_clicks_pick_cards_sessions_and_tabs(team_room: Room) -> None:
    from tui.dashboard.screens.session_detail import SessionDetailScreen

    app = make_app(team_room.home, FakeActions(), bell=False)
    async with app.run_test(size=PANE) as pilot:
        screen = await loaded(pilot)
        running = screen.board.column("running")
        await pilot.click(running, offset=(2, 4))  # the second card's title
        assert screen.board.current is running and screen.board.current_task.id == 4
        await pilot.click(screen.sessions_table, offset=(3, 3))  # the second row: coder
        assert screen.sessions_table.selected == "coder"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionDetailScreen),
                       what="coder's detail")
        await pilot.click("#--content-tab-inbox")
        await pilot.pause()
        assert app.screen.query_one("TabbedContent").active == "inbox"


class SlowFirstStatusLine(FakeActions):
    """A tmux whose first status-line write hangs until released (a loaded machine)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.first_started = threading.Event()
        self.first_done = threading.Event()

    def show_attention(self, count: int) -> None:
        if self.first_started.is_set():
            super().show_attention(count)
            return
        self.first_started.set()
        self.release.wait(10)
        super().show_attention(count)
        self.first_done.set()


async def test_the_status_line_ends_on_the_newest_count_when_an_older_write_is_slow(
        team_room: Room) -> None:
    actions = SlowFirstStatusLine()
    app = make_app(team_room.home, actions, bell=False)
    async with app.run_test(size=PANE) as pilot:
        screen = await loaded(pilot)
        await wait_for(pilot, actions.first_started.is_set, what="the first count's write")
        sessions.set_status(team_room.conn, "reviewer", "working")  # one need fewer
        await wait_for(pilot, lambda: len(screen.query_one(NeedsYou).needs) == 3,
                       what="the answered question to leave the strip")
        actions.release.set()  # the older write finishes only now
        await wait_for(pilot, actions.first_done.is_set, what="the older write to finish")
        await wait_for(pilot, lambda: actions.attention[-1:] == [3],
                       what="the status line to end on 3")
        await workers_done(app)
        assert actions.attention[-1] == 3, actions.attention
