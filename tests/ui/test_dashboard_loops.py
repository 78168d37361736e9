"""A conversation the loop guard holds is one line in the needs-you strip; `r` on it
releases it and `x` ends it, as `bullpen note release|end` do."""

from __future__ import annotations

from pathlib import Path

from board import chains, notes
from board.db import connect
from board.home import DB_NAME
from board.identity import Caller
from board.room import Room
from board.vocabulary import ChainState
from tests.ui.fakes import FakeActions
from tests.ui.helpers import loaded, wait_for, workers_done
from tui.dashboard import make_app
from tui.dashboard.screens.confirm import ConfirmScreen
from tui.dashboard.widgets.needs_you import NeedsYou

PANE = (90, 40)


def _loop(room: Room, topic: str, count: int = 4) -> int:
    """research and coder answering each other past a limit of 2; the chain's id."""
    chains.set_limits(room.conn, chains.Limits(notes=2, rate=None))
    sent: list[int] = []
    for index in range(count):
        sender, to = ("research", "coder") if index % 2 == 0 else ("coder", "research")
        sent.append(notes.send(room.conn, Caller(sender), to, f"{topic} {index}",
                               reply_to=sent[-1] if sent else None).id)
    return sent[0]


def _state(home: Path, chain: int) -> str | None:
    conn = connect(home / DB_NAME)  # another process's view
    try:
        return chains.state_of(conn, chain)
    finally:
        conn.close()


async def test_r_releases_a_held_conversation_and_x_ends_the_next(
        team_room: Room, fake_actions: FakeActions) -> None:
    chain = _loop(team_room, "the parser")
    app = make_app(team_room.home, fake_actions, bell=False)
    async with app.run_test(size=PANE) as pilot:
        screen = await loaded(pilot)
        strip = screen.query_one(NeedsYou)
        assert [need.kind for need in strip.needs][:2] == ["input", "loop"]
        assert strip.needs[1].text.startswith(f"chain {chain}: research↔coder, 3 notes in ")
        assert "r release · x end" in str(strip.border_subtitle)
        await pilot.press("g", "r")  # on the question: r is not for it
        await workers_done(app)
        assert _state(team_room.home, chain) == ChainState.HELD
        await pilot.press("g", "r")  # on the loop
        await workers_done(app)
        assert _state(team_room.home, chain) == ChainState.OPEN
        await wait_for(pilot, lambda: "loop" not in [n.kind for n in strip.needs],
                       what="the released chain to leave the strip")
        again = _loop(team_room, "the lexer")
        await wait_for(pilot, lambda: "loop" in [n.kind for n in strip.needs],
                       what="the next held chain")
        for _ in range(len(strip.needs)):  # g walks the strip to the held chain
            if strip.has_focus and strip.needs[strip.cursor].kind == "loop":
                break
            await pilot.press("g")
        await pilot.press("x")  # it asks first: no is no
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await workers_done(app)
        assert _state(team_room.home, again) == ChainState.HELD
        await pilot.press("x", "y")
        await workers_done(app)
        assert _state(team_room.home, again) == ChainState.ENDED
