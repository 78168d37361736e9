"""The session detail with its real diff, and the plan graph (issue 14)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from board import sessions, tasks
from board.room import Room
from tests.conftest import commit_file
from tests.ui.fakes import FakeActions
from tests.ui.helpers import loaded, wait_for
from tui.dashboard import make_app
from tui.dashboard.actions import RuntimeActions
from tui.dashboard.screens.graph import GraphScreen
from tui.dashboard.screens.session_detail import SessionDetailScreen
from worktrees.create import create_worktree

PANE = (90, 40)


async def test_session_detail_shows_committed_and_uncommitted_change(
        git_repo: Path, room: Room) -> None:
    tree = create_worktree(git_repo, "coder")
    sessions.register(room.conn, "coder", agent="claude", branch=tree.branch,
                      worktree=str(tree.path), base=tree.base_commit, task="build /usage")
    commit_file(tree.path, "src/usage.py", "def usage():\n    return 42\n", "add usage")
    (tree.path / "README.md").write_text("# demo repo\n\nnow with /usage\n")  # uncommitted
    app = make_app(room.home, RuntimeActions(room.home), bell=False)  # real git, no fake
    async with app.run_test(size=PANE) as pilot:
        await loaded(pilot)
        await pilot.press("1", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionDetailScreen),
                       what="the session detail")
        detail = app.screen.detail
        assert detail.problem is None
        assert detail.changed == ("README.md",)
        assert "+    return 42" in detail.diff  # the commit since the base
        assert "+now with /usage" in detail.diff  # the uncommitted edit
        await pilot.press("d")  # the diff tab: what `bullpen diff coder` prints
        body = app.screen.query_one("#diff-body", Static)
        await pilot.pause()
        assert body.region.height > 0
        shown = "\n".join(body.render_line(y).text for y in range(body.region.height))
        assert "src/usage.py" in shown and "README.md" in shown
        await pilot.press("escape")
        assert not isinstance(app.screen, SessionDetailScreen)


async def test_session_detail_marks_private_entries(team_room: Room,
                                                   fake_actions: FakeActions) -> None:
    app = make_app(team_room.home, fake_actions, bell=False)
    async with app.run_test(size=PANE) as pilot:
        await loaded(pilot)
        await pilot.press("1", "down", "enter")  # coder
        await wait_for(pilot, lambda: isinstance(app.screen, SessionDetailScreen),
                       what="coder's detail")
        detail = app.screen.detail
        assert [(e.body, e.private) for e in detail.notebook] == [
            ("my private scratch: try caching", True)]
        await pilot.press("b")
        await pilot.pause()
        body = app.screen.query_one("#notebook-body", Static)
        shown = "\n".join(body.render_line(y).text for y in range(body.region.height))
        assert "[private]" in shown and "try caching" in shown
        assert [note.id for note, _ in detail.inbox] == [1, 3, 4, 5]  # what coder received


async def test_graph_view_of_a_three_stage_plan(room: Room) -> None:
    operator = room.caller
    research = tasks.add(room.conn, operator, "Gather the usage data")
    code = tasks.add(room.conn, operator, "Implement /usage", after=[research.id])
    tasks.add(room.conn, operator, "Review the commit", after=[code.id])
    tasks.add(room.conn, operator, "Unrelated chore")
    app = make_app(room.home, FakeActions(), bell=False)
    async with app.run_test(size=PANE) as pilot:
        await loaded(pilot)
        await pilot.press("G")
        assert isinstance(app.screen, GraphScreen)
        await pilot.pause()
        body = app.screen.query_one("#graph-body", Static)
        lines = [body.render_line(y).text.rstrip() for y in range(body.region.height)]
        assert lines[:4] == ["#1 Gather the usage data [ready]",
                             "└─▶ #2 Implement /usage [todo]",
                             "    └─▶ #3 Review the commit [todo]",
                             "#4 Unrelated chore [ready]"]
        await pilot.press("escape")
        assert not isinstance(app.screen, GraphScreen)
