"""Session keys call the runtime (faked here); notes go through notes.send; live updates."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from board import notes
from board.db import connect
from board.home import DB_NAME
from board.room import Room
from tests.ui.fakes import PREVIEW, FakeActions
from tests.ui.helpers import loaded, settled, wait_for, workers_done
from tui.dashboard import make_app
from tui.dashboard.screens.confirm import ConfirmScreen
from tui.dashboard.screens.help import HelpScreen

SIZE = (160, 48)
BULLPEN = Path(sys.executable).with_name("bullpen")


async def test_session_keys_call_the_runtime(fake_room: Room, fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        assert screen.preview.text == PREVIEW
        await pilot.press("1", "down")  # the sessions panel, second row
        assert screen.sessions_table.selected == "coder"
        await pilot.press("f", "z", "t")  # stop asks first: no is no
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await workers_done(app)
        assert ("stop", "coder", {}) not in fake_actions.calls
        await pilot.press("t", "y", "r")
        await workers_done(app)
        await pilot.press("D")  # remove asks first too: no is no
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await workers_done(app)
        assert ("rm", "coder", {}) not in fake_actions.calls
        await pilot.press("D", "y")
        await workers_done(app)
        # Tab moves between the form's fields; enter submits it from any field.
        await pilot.press("s", *"tester", "tab", *"aider", "tab", *"write tests", "tab",
                          *"type", "enter")
        await workers_done(app)
        # The periodic coordinator check may fire on a slow machine; it is not a key's call.
        calls = [call for call in fake_actions.calls if call[0] != "keep_coordinator"]
        assert calls == [
            ("focus", "coder", {}), ("zoom", "coder", {}), ("stop", "coder", {}),
            ("restart", "coder", {}), ("rm", "coder", {}),
            ("spawn", "tester", {"agent": "aider", "task": "write tests", "deliver": "type"}),
        ]


async def test_compose_sends_a_note_to_the_selected_session(fake_room: Room,
                                                            fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        await pilot.press("1", "down", "down", "m", *"please review #8", "enter")
        await settled(pilot)
        conn = connect(fake_room.home / DB_NAME)
        sent = notes.recent(conn, 1)[0]
        conn.close()
        assert (sent.sender, sent.recipient, sent.body) == ("operator", "reviewer",
                                                            "please review #8")
        assert screen.stream.items[-1].text == "please review #8"
        await pilot.press("M", *"lunch", "enter")
        await settled(pilot)
        assert screen.stream.items[-1].to == "*"


async def test_filter_help_and_private_marker(fake_room: Room,
                                              fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        private = [item for item in screen.stream.items if item.private]
        assert [item.text for item in private] == ["my private scratch: try caching"]
        await pilot.press("1", "slash")  # only research's notes
        assert screen.stream.only == "research"
        await pilot.pause()
        shown = sum(item.involves("research") for item in screen.stream.items)
        assert 0 < shown < len(screen.stream.items)
        assert len(screen.stream.shown) == shown
        await pilot.press("slash")
        assert screen.stream.only is None
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert app.screen is screen


async def test_a_note_from_another_process_appears(fake_room: Room,
                                                   fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        env = {**os.environ, "BULLPEN_HOME": str(fake_room.home)}
        subprocess.run([str(BULLPEN), "note", "send", "coder", "from", "outside"], env=env,
                       check=True, capture_output=True)
        await wait_for(pilot, lambda: screen.stream.items[-1].text == "from outside",
                       seconds=5, what="the note in the stream")
        # The note is drawn first; the sessions panel's counts follow (tail.py), soon.
        await wait_for(pilot, lambda: screen.sessions_table.rows_by_name["coder"].unread == 4,
                       seconds=5, what="coder's unread count")


async def test_the_board_with_no_tasks(room: Room, fake_actions: FakeActions) -> None:
    app = make_app(room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        assert screen.board.tasks == {}
        await pilot.press("shift+right", "d", "x", "enter")  # no card: nothing happens
        assert app.screen is screen
        await pilot.press("n", *"first task", "enter")
        await settled(pilot)
        assert screen.board.columns["ready"] == [1]
        assert screen.board.current_task is not None


async def test_the_board_with_5000_tasks(room: Room, fake_actions: FakeActions) -> None:
    from board.db import write
    from board.validate import STATUSES
    with write(room.conn):  # one transaction
        for number in range(5000):
            room.conn.execute(
                "INSERT INTO tasks (title, status, created_by, created_at, updated_at)"
                " VALUES (?, ?, 'operator', 0, 0)",
                (f"task {number}", STATUSES[number % len(STATUSES)]))
    app = make_app(room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        assert len(screen.board.tasks) == 5000
        assert len(screen.board.columns["ready"]) == 625
        await pilot.press("end")
        assert screen.board.current_task.id == 4995  # the last ready card
        await pilot.press("shift+right")
        await settled(pilot)
        assert screen.board.tasks[4995].status == "running"
        assert screen.board.current.status == "running"
        assert len(screen.board.columns["running"]) == 626


@pytest.mark.parametrize(("agent", "label"), [
    ("/home/u/.venv/bin/python -m workers.demo.agents research", "script"),
    ("hermes -p coder --cli", "hermes"),
    ("/usr/bin/python3 tests/agents/scripted_agent.py --log f", "script"),
    ("claude --dangerously-skip-permissions", "claude"),
    ("IS_SANDBOX=1 claude", "claude"),
    ("env FOO=1 /usr/local/bin/aider --yes", "aider"),
    ("bash", "shell"),
    ("/bin/zsh -l", "shell"),
    (None, "-"),
    ("a-very-long-agent-program-name", "a-very-lo…"),
])
def test_agent_labels_stay_short(agent: str | None, label: str) -> None:
    from tui.dashboard.format import agent_label

    assert agent_label(agent) == label


async def test_the_machine_column_shows_once_sessions_run_on_two_machines(
        fake_room: Room, fake_actions: FakeActions) -> None:
    fake_room.conn.execute("UPDATE sessions SET machine = 'alpha'")
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        table = (await loaded(pilot)).sessions_table
        assert "machine" not in table.columns_shown  # one machine: nothing to tell apart
    fake_room.conn.execute("UPDATE sessions SET machine = 'beta' WHERE name = 'coder'")
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        table = (await loaded(pilot)).sessions_table
        assert table.columns_shown[-1] == "machine"
        assert str(table.get_cell("coder", "machine")) == "beta"
        others = [name for name in table.rows_by_name if name != "coder"]
        assert {str(table.get_cell(name, "machine")) for name in others} == {"alpha"}


@pytest.mark.parametrize("width", [80, 120])
async def test_name_and_status_columns_widen_to_what_they_later_show(
        room: Room, fake_actions: FakeActions, width: int) -> None:
    """Defect D2: the columns took the width of the first rows ('idle', a bare name) and
    cut what came later: 'working' read 'workin', a conflict mark lost its count."""
    from board import conflicts, sessions
    from board.conflicts import ConflictFile

    conn = room.conn
    for name in ("coder", "tester"):
        sessions.register(conn, name, agent="hermes", branch=f"bullpen/{name}")
        sessions.set_status(conn, name, "idle")
    app = make_app(room.home, fake_actions, bell=False)
    async with app.run_test(size=(width, 40)) as pilot:
        screen = await loaded(pilot)
        table = screen.sessions_table
        sessions.set_status(conn, "coder", "working")
        conflicts.found(conn, "coder", "tester", (ConflictFile("src/app.py", ((1, 2),),
                                                               ((1, 1),)),),
                        a_commits=("abc1234",), b_commits=("def5678",))

        def coder_line() -> str:
            lines = [table.render_line(y).text for y in range(table.size.height)]
            return next((line for line in lines if "coder" in line), "")

        await wait_for(pilot, lambda: "⚠1" in coder_line() and "working" in coder_line(),
                       what="coder's whole name and status")
