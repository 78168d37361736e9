"""A session's question answered from the dashboard: `a` on its needs-you line shows the
question with its context and choices, a digit answers with the question's id (so the room
refuses it if the question changed, and the dashboard says so), escape answers nothing."""

from __future__ import annotations

from textual.widgets import Static

from board.room import Room
from tests.ui.fakes import FakeActions
from tests.ui.helpers import loaded, notifications, wait_for, workers_done
from tui.dashboard import make_app
from tui.dashboard.screens.answer import AnswerScreen
from tui.dashboard.screens.session_detail import SessionDetailScreen
from tui.dashboard.widgets.needs_you import NeedsYou
from workers.agents.readers.menus import Choice
from workers.room.answers import Question

PANE = (100, 40)
ASKED = Question("reviewer", "d05a470a", "Do you want to proceed?",
                 ("Bash command", "touch /tmp/cc/flag", "Do you want to proceed?"),
                 (Choice(1, "Yes"), Choice(2, "Yes, and always allow access to /tmp/cc"),
                  Choice(3, "No")), 0)


def _text(screen: AnswerScreen) -> str:
    return "\n".join(str(label.render()) for label in screen.query("Label"))


async def test_a_shows_the_question_and_a_digit_answers_it_with_its_id(
        team_room: Room, fake_actions: FakeActions) -> None:
    fake_actions.asked = [ASKED]
    app = make_app(team_room.home, fake_actions, bell=False)
    async with app.run_test(size=PANE) as pilot:
        screen = await loaded(pilot)
        strip = screen.query_one(NeedsYou)
        assert strip.needs[0].kind == "input"
        await pilot.press("g", "a")
        await wait_for(pilot, lambda: isinstance(app.screen, AnswerScreen),
                       what="the question to open")
        shown = _text(app.screen)  # type: ignore[arg-type]
        for words in ("reviewer asks", "touch /tmp/cc/flag", "Do you want to proceed?",
                      "1  Yes", "3  No"):
            assert words in shown, shown
        await pilot.press("5")  # not a choice: nothing
        assert isinstance(app.screen, AnswerScreen)
        await pilot.press("3")
        await workers_done(app)
        assert ("answer", "reviewer", {"choice": "3", "question": "d05a470a"}) \
            in fake_actions.calls
        assert not isinstance(app.screen, AnswerScreen)
        await wait_for(pilot, lambda: any("answered reviewer: 3 No" in text
                                          for text in notifications(app)),
                       what="the answer to be confirmed")


async def test_a_changed_question_is_refused_and_escape_answers_nothing(
        team_room: Room, fake_actions: FakeActions) -> None:
    fake_actions.asked = [ASKED]
    fake_actions.answer_refusal = "the question changed: reviewer now asks 'rm -rf x?'"
    app = make_app(team_room.home, fake_actions, bell=False)
    async with app.run_test(size=PANE) as pilot:
        await loaded(pilot)
        await pilot.press("g", "a")
        await wait_for(pilot, lambda: isinstance(app.screen, AnswerScreen), what="open")
        await pilot.press("escape")
        await workers_done(app)
        assert not any(call[0] == "answer" for call in fake_actions.calls)
        await pilot.press("a")  # the strip keeps its focus and cursor
        await wait_for(pilot, lambda: isinstance(app.screen, AnswerScreen), what="open")
        await pilot.press("1")
        await workers_done(app)
        await wait_for(pilot, lambda: any("the question changed" in text
                                          for text in notifications(app)),
                       what="the refusal to be shown")
        fake_actions.asked = []  # the session asks nothing any more
        await pilot.press("a")
        await workers_done(app)
        await wait_for(pilot, lambda: any("asks nothing now" in text
                                          for text in notifications(app)), what="told")
        assert not isinstance(app.screen, AnswerScreen)


async def test_the_detail_of_a_session_that_asks_shows_its_question_and_choices(
        team_room: Room, fake_actions: FakeActions) -> None:
    fake_actions.asked = [ASKED]
    app = make_app(team_room.home, fake_actions, bell=False)
    async with app.run_test(size=PANE) as pilot:
        await loaded(pilot)
        await pilot.press("1", "j", "j", "enter")  # reviewer, which needs input
        await wait_for(pilot, lambda: isinstance(app.screen, SessionDetailScreen),
                       what="reviewer's detail")
        assert app.screen.detail.session.name == "reviewer"  # type: ignore[attr-defined]
        await pilot.pause()
        body = app.screen.query_one("#overview-body", Static)
        shown = "\n".join(body.render_line(y).text for y in range(body.region.height))
        for words in ("question (d05a470a)", "Bash command", "touch /tmp/cc/flag",
                      "Do you want to proceed?", "❯ 1  Yes",
                      "2  Yes, and always allow access to /tmp/cc", "3  No",
                      "a on its needs-you line answers it"):
            assert words in shown, shown
        await pilot.press("escape")
        await pilot.press("1", "k", "enter")  # coder asks nothing: no question shown
        await wait_for(pilot, lambda: isinstance(app.screen, SessionDetailScreen),
                       what="coder's detail")
        assert app.screen.detail.question is None  # type: ignore[attr-defined]
