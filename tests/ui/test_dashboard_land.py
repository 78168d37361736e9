"""Landing from the dashboard: `L` on a done session asks, then lands it in a worker while
the land screen shows the check's progress and newest lines, then the outcome; the done
card says whether its session's work landed. A real git repository, a real check
command, and the runtime's own code flow and landing (RuntimeActions); only the tmux
side (panes, the coordinator, the status line) is the fake's, since no room is up."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from textual.widgets import Log, Static

from board import sessions, tasks
from board.identity import Caller
from board.room import Room
from tests.conftest import commit_file, git
from tests.ui.fakes import FakeActions
from tests.ui.helpers import loaded, wait_for
from tui.dashboard import make_app
from tui.dashboard.actions import RuntimeActions
from tui.dashboard.screens.confirm import ConfirmScreen
from tui.dashboard.screens.land import LandScreen
from tui.dashboard.widgets.card_list import CardList
from tui.dashboard.widgets.sessions_table import SessionsTable
from worktrees import create_worktree

SIZE = (120, 40)
OPERATOR = Caller("operator")


class LandingActions(FakeActions):
    """The runtime's landing and code flow on the real repository; no tmux."""

    def __init__(self, home: Path) -> None:
        super().__init__()
        self.runtime = RuntimeActions(home)

    def code_flows(self) -> dict:
        return self.runtime.code_flows()

    def landing_preview(self, name: str):  # noqa: ANN201
        return self.runtime.landing_preview(name)

    def land(self, name: str, on_output, accepted: tuple = ()) -> str:  # noqa: ANN001
        return self.runtime.land(name, on_output, accepted)


def check_command(gate: Path, last: str, status: int) -> str:
    """A check that prints two lines, holds until `gate` exists (at most 30 s), then
    prints `last` and exits with `status`: the test sees it while it runs."""
    return (f"echo step one; echo step two; i=0; while [ ! -e {gate} ] && [ $i -lt 600 ];"
            f" do sleep 0.05; i=$((i+1)); done; echo {last}; exit {status}")


@pytest.fixture
def done_coder(room: Room) -> Path:
    """Session coder with one commit main lacks and its task done: ready to land."""
    info = create_worktree(room.home.parent, "coder")
    sessions.register(room.conn, "coder", branch=info.branch, worktree=str(info.path),
                      base=info.base_commit)
    commit_file(info.path, "src/app.py", "def handler():\n    return 'v2'\n", "v2")
    task = tasks.add(room.conn, OPERATOR, "Write v2", assignee="coder")
    tasks.done(room.conn, OPERATOR, task.id, "v2 is in")
    return info.path


def plan(repo: Path, check: str) -> None:
    (repo / "bullpen.yaml").write_text(yaml.safe_dump(
        {"land": {"strategy": "merge", "check": check}, "sessions": {"coder": {}}}))


def card_lines(app, status: str) -> list[str]:  # noqa: ANN001 - a DashboardApp
    column = app.screen_stack[0].query_one(f"#column-{status}", CardList)
    return [column.render_line(y).text for y in range(column.region.height)]


def shown(screen: LandScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def ask_to_land(pilot, app) -> ConfirmScreen:  # noqa: ANN001
    await pilot.press("1")
    table = app.screen.query_one(SessionsTable)
    table.select("coder")
    await pilot.press("L")
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
    return app.screen


async def test_the_land_key_asks_shows_the_check_running_then_what_landed(
        room: Room, done_coder: Path, tmp_path: Path) -> None:
    repo = room.home.parent
    gate = tmp_path / "gate"
    plan(repo, check_command(gate, "all checks passed", 0))
    before = git(repo, "rev-parse", "main").strip()
    app = make_app(room.home, LandingActions(room.home), bell=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await wait_for(pilot, lambda: any("↑ ready to land @coder" in line
                                          for line in card_lines(app, "done")),
                       what="the done card saying ready to land")
        question = await ask_to_land(pilot, app)
        assert question.question == "Land coder on main?"
        assert "coder: ready to land" in question.detail
        assert "then the check runs there: echo step one" in question.detail
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, LandScreen), what="the land screen")
        screen = app.screen
        assert isinstance(screen, LandScreen)
        log = screen.query_one(Log)
        await wait_for(pilot, lambda: list(log.lines) == ["step one", "step two"],
                       what="the check's first lines")
        # The check is still running (held by the gate) and the UI is not waiting on it:
        # the status line keeps counting, and the base has not moved.
        first = shown(screen, "#land-status")
        assert "running the check" in first and "2 lines of output" in first
        await wait_for(pilot, lambda: shown(screen, "#land-status") != first,
                       what="the status line to move on while the check runs")
        assert screen.running and git(repo, "rev-parse", "main").strip() == before
        gate.touch()
        await wait_for(pilot, lambda: not screen.running, seconds=30, what="the outcome")
        await wait_for(pilot, lambda: "✓" in shown(screen, "#land-outcome"), what="outcome")
        after = git(repo, "rev-parse", "main").strip()
        assert after != before
        outcome = shown(screen, "#land-outcome")
        assert f"landed coder on main: {before[:7]} -> {after[:7]}" in outcome
        assert list(log.lines)[-1] == "all checks passed"
        await pilot.press("escape")
        await wait_for(pilot, lambda: any(f"✓ landed {after[:7]} @coder" in line
                                          for line in card_lines(app, "done")),
                       what="the done card saying landed")


async def test_a_failing_check_refuses_with_its_reason_and_nothing_moves(
        room: Room, done_coder: Path, tmp_path: Path) -> None:
    repo = room.home.parent
    gate = tmp_path / "gate"
    gate.touch()  # no need to hold this one
    plan(repo, check_command(gate, "FAILED tests/test_app.py::test_v2", 1))
    before = git(repo, "rev-parse", "main").strip()
    app = make_app(room.home, LandingActions(room.home), bell=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await ask_to_land(pilot, app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, LandScreen), what="the land screen")
        screen = app.screen
        assert isinstance(screen, LandScreen)
        await wait_for(pilot, lambda: not screen.running, seconds=30, what="the outcome")
        await wait_for(pilot, lambda: "refused" in shown(screen, "#land-outcome"),
                       what="the refusal shown")
        assert shown(screen, "#land-outcome") == (
            "✗ refused: coder: the check failed (exit 1): FAILED tests/test_app.py::test_v2;"
            " nothing landed")
        assert git(repo, "rev-parse", "main").strip() == before
        await pilot.press("escape")
        assert any("ready to land" in line for line in card_lines(app, "done"))


async def test_no_to_the_question_lands_nothing(room: Room, done_coder: Path,
                                                tmp_path: Path) -> None:
    repo = room.home.parent
    plan(repo, "true")
    before = git(repo, "rev-parse", "main").strip()
    app = make_app(room.home, LandingActions(room.home), bell=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await ask_to_land(pilot, app)
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen),
                       what="the question gone")
        await pilot.pause()
        assert not isinstance(app.screen, LandScreen)
        assert git(repo, "rev-parse", "main").strip() == before
