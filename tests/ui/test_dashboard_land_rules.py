"""The dashboard's `L` on a branch that changes the room's rules: the question names each
changed key before and after, yes lands it with exactly those changes, and a branch
that changed them again after the question is refused. A real repository and the
runtime's own landing (tests.ui.test_dashboard_land's LandingActions)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from board import sessions, tasks
from board.identity import Caller
from board.room import Room
from tests.conftest import commit_file, git
from tests.ui.helpers import loaded, wait_for
from tests.ui.test_dashboard_land import SIZE, LandingActions, ask_to_land, shown
from tui.dashboard import make_app
from tui.dashboard.screens.confirm import ConfirmScreen
from tui.dashboard.screens.land import LandScreen
from worktrees import create_worktree

OPERATOR = Caller("operator")
PLAN = {"land": {"strategy": "merge", "check": "true"}, "sessions": {"coder": {}}}


@pytest.fixture
def greedy_coder(room: Room) -> Path:
    """Session coder, done, whose branch grants itself may: [down, land] in bullpen.yaml."""
    repo = room.home.parent
    commit_file(repo, "bullpen.yaml", yaml.safe_dump(PLAN), "the operator's plan")
    info = create_worktree(repo, "coder")
    sessions.register(room.conn, "coder", branch=info.branch, worktree=str(info.path),
                      base=info.base_commit)
    commit_file(info.path, "bullpen.yaml", yaml.safe_dump(
        {**PLAN, "sessions": {"coder": {"may": ["down", "land"]}}}), "coder: plan")
    task = tasks.add(room.conn, OPERATOR, "Write v2", assignee="coder")
    tasks.done(room.conn, OPERATOR, task.id, "v2 is in")
    return info.path


async def test_the_land_question_shows_the_rules_a_branch_changes_and_yes_lands_them(
        room: Room, greedy_coder: Path) -> None:
    repo = room.home.parent
    before = git(repo, "rev-parse", "main").strip()
    app = make_app(room.home, LandingActions(room.home), bell=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        question = await ask_to_land(pilot, app)
        assert question.question == "Land coder on main? It changes the room's rules"
        assert ("coder changes the room's rules:\n"
                "  sessions.coder.may: none -> [down, land]\n") in question.detail
        assert question.yes == "land and accept these rules"
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, LandScreen), what="the land screen")
        screen = app.screen
        assert isinstance(screen, LandScreen)
        await wait_for(pilot, lambda: not screen.running, seconds=30, what="the outcome")
        outcome = shown(screen, "#land-outcome")
        assert outcome.startswith("✓ landed coder on main"), outcome
        assert outcome.endswith("it changed the room's rules:"
                                " sessions.coder.may: none -> [down, land]")
    assert git(repo, "rev-parse", "main").strip() != before


async def test_no_to_the_rules_question_lands_nothing(room: Room, greedy_coder: Path) -> None:
    repo = room.home.parent
    before = git(repo, "rev-parse", "main").strip()
    app = make_app(room.home, LandingActions(room.home), bell=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await ask_to_land(pilot, app)
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen),
                       what="the question gone")
        assert not isinstance(app.screen, LandScreen)
    assert git(repo, "rev-parse", "main").strip() == before


async def test_rules_changed_again_after_the_question_are_refused(
        room: Room, greedy_coder: Path) -> None:
    repo = room.home.parent
    before = git(repo, "rev-parse", "main").strip()
    app = make_app(room.home, LandingActions(room.home), bell=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await ask_to_land(pilot, app)
        # While the operator reads the question, the branch grants itself more.
        commit_file(greedy_coder, "bullpen.yaml", yaml.safe_dump(
            {**PLAN, "sessions": {"coder": {"may": ["down", "land", "spawn"]}}}), "more")
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, LandScreen), what="the land screen")
        screen = app.screen
        assert isinstance(screen, LandScreen)
        await wait_for(pilot, lambda: not screen.running, seconds=30, what="the outcome")
        outcome = shown(screen, "#land-outcome")
        assert outcome.startswith("✗ refused: coder's changes to the room's rules are not the"
                                  " ones you were shown (sessions.coder.may: none -> [down,"
                                  " land, spawn])"), outcome
    assert git(repo, "rev-parse", "main").strip() == before


async def test_a_long_list_of_rule_changes_is_cut_to_fit_the_question(room: Room) -> None:
    repo = room.home.parent
    many = {f"s{n}": {"may": ["stop"]} for n in range(12)}
    commit_file(repo, "bullpen.yaml", yaml.safe_dump({**PLAN, "sessions": {**many, "coder": {}}}),
                "the operator's plan")
    info = create_worktree(repo, "coder")
    sessions.register(room.conn, "coder", branch=info.branch, worktree=str(info.path),
                      base=info.base_commit)
    commit_file(info.path, "bullpen.yaml", yaml.safe_dump(PLAN), "coder: fewer sessions")
    app = make_app(room.home, LandingActions(room.home), bell=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        question = await ask_to_land(pilot, app)
        listed = [line for line in question.detail.splitlines() if line.startswith("  ")]
        assert listed[0] == "  sessions.s0.may: [stop] -> none"
        assert listed[-1] == ("  and 4 more (git diff main...bullpen/coder -- bullpen.yaml)")
        assert len(listed) == 9
