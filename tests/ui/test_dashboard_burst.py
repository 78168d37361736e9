"""A burst of changes while the screen is busy is drawn whole: the deltas the tail read
meanwhile are merged into one, and that one holds every note and each card's last
move (tui/dashboard/coalesce.py)."""

from __future__ import annotations

from board import notes, sessions, tasks
from board.room import Room
from board.views import last_event_id
from board.vocabulary import NoteKind, TaskStatus
from tests.ui.fakes import OPERATOR, FakeActions
from tests.ui.helpers import loaded, settled, wait_for
from tests.waiting import wait_until
from tui.dashboard import make_app
from tui.dashboard.feed import RoomDelta

SIZE = (160, 48)
NOTES = 40


async def test_a_burst_while_the_screen_is_busy_is_drawn_whole_in_one_go(
        fake_room: Room, fake_actions: FakeActions) -> None:
    app = make_app(fake_room.home, fake_actions)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        await settled(pilot)
        applied: list[RoomDelta] = []
        original = screen.apply_delta

        def counting(delta: RoomDelta) -> None:
            applied.append(delta)
            original(delta)

        screen.apply_delta = counting  # type: ignore[method-assign]
        conn = fake_room.conn
        # Nothing below yields to the event loop: the screen is busy while the store
        # moves on and the tail reads it, delta after delta.
        sent = [notes.send(conn, OPERATOR, "coder", f"burst {number}").id
                for number in range(NOTES)]
        card = tasks.add(conn, OPERATOR, "burst card", status=TaskStatus.TODO)
        for status in (TaskStatus.READY, TaskStatus.RUNNING, TaskStatus.REVIEW):
            tasks.move(conn, OPERATOR, card.id, status)
        sessions.set_status(conn, "research", "working")
        newest = last_event_id(conn)
        wait_until(lambda: (screen.deltas.waiting_until or 0) >= newest, timeout=10,
                   message="the tail to read the whole burst")

        await settled(pilot)
        first = applied[0]  # everything the tail read while the screen was busy
        assert [line.ref for line in first.stream if line.kind == NoteKind.NOTE] == sent
        assert [task.status for task in first.tasks if task.id == card.id] == \
            [TaskStatus.REVIEW]
        shown = [item.ref for item in screen.stream.items if item.kind == NoteKind.NOTE]
        assert all(note in shown for note in sent)
        board = screen.board
        assert card.id in board.column(TaskStatus.REVIEW).ids
        assert all(card.id not in board.column(status).ids
                   for status in (TaskStatus.TODO, TaskStatus.READY, TaskStatus.RUNNING))
        # The sessions' rows are read at the panels' pace: they may follow a moment later.
        await wait_for(pilot, lambda: str(screen.sessions_table.get_cell(
            "research", "status")).startswith("work"), what="research's new status")
