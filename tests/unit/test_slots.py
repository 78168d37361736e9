"""The warm cap's parts: `max_running`/`idle_release` in bullpen.yaml, the plan's order,
who fits, and the coordinator's keeper releasing finished or long-idle agents (a real
SQLite store, a stand-in for the room's hands)."""

from __future__ import annotations

from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest

from board import deliveries, notes, sessions, slots, tasks
from board.db import connect
from board.errors import BadInput
from board.identity import Caller
from board.room import Room
from board.vocabulary import OPERATOR, DesiredState, HoldReason, SessionStatus
from workers.agents.adapter import AgentState
from workers.coordinator.poll import Observation
from workers.coordinator.slots import SlotKeeper
from workers.coordinator.status import PaneStatus
from workers.room import config
from workers.room.slots import plan_order
from workers.tmux.panes import PaneSnapshot


def load(tmp_path: Path, text: str) -> config.Config:
    (tmp_path / "bullpen.yaml").write_text(text)
    return config.load(tmp_path)


@pytest.mark.parametrize(("text", "total", "kinds", "idle"), [
    ("max_running: 2\n", 2, {}, None),
    ("max_running: {all: 3, claude: 1}\n", 3, {"claude": 1}, None),
    ("max_running:\n  hermes: 1\n  generic: 2\n", None, {"hermes": 1, "generic": 2}, None),
    ("max_running: 2\nidle_release: 90\n", 2, {}, 90.0),
    ("max_running: 2\nidle_release: 10m\n", 2, {}, 600.0),
    ("max_running: 2\nidle_release: 1.5h\n", 2, {}, 5400.0),
    ("max_running: 2\nidle_release: off\n", 2, {}, None),
    ("agent: sh\n", None, {}, None),
])
def test_max_running_and_idle_release_shapes(tmp_path: Path, text: str, total: int | None,
                                              kinds: dict, idle: float | None) -> None:
    cap = load(tmp_path, text).warm_cap
    assert (cap.total, cap.kinds, cap.idle_release) == (total, kinds, idle)
    assert cap.on == (total is not None or bool(kinds))


@pytest.mark.parametrize(("text", "message"), [
    ("max_running: 0\n", "bullpen.yaml:1: max_running: expected a whole number of at least 1"),
    ("max_running: -1\n", "bullpen.yaml:1: max_running: expected a whole number"),
    ("max_running: two\n", "bullpen.yaml:1: max_running: expected a whole number"),
    ("max_running: [1]\n", "bullpen.yaml:1: max_running: expected a whole number"),
    ("max_running:\n  all: 2\n  gemini: 1\n", "bullpen.yaml:3: max_running.gemini: unknown key;"
     " use all or an agent kind (hermes, claude, codex, aider, shell, generic)"),
    ("max_running: {claude: 0}\n", "bullpen.yaml:1: max_running.claude: expected a whole"),
    ("max_running: {}\n", "bullpen.yaml:1: max_running: give all: N, or a number per agent"),
    ("max_running: 2\nidle_release: soon\n", "bullpen.yaml:2: idle_release: expected a time"
     " such as 90s, 10m or 1h (or off), not 'soon'"),
    ("max_running: 2\nidle_release: 0\n", "bullpen.yaml:2: idle_release: expected a time"),
    ("idle_release: 10m\n", "bullpen.yaml:1: idle_release: only means something with"
     " max_running"),
])
def test_bad_values_name_the_line_and_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(BadInput) as raised:
        load(tmp_path, text)
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)


def test_plan_order_is_parents_first_then_file_order(tmp_path: Path) -> None:
    plan = load(tmp_path, """
sessions:
  review: {after: [coder]}
  coder: {after: [research]}
  docs: {}
  research: {}
  tests: {after: [research]}
""")
    assert [p.name for p in plan_order(plan)] == ["docs", "research", "coder", "review",
                                                   "tests"]


def test_admit_fills_the_room_cap_and_each_kinds_cap_in_order() -> None:
    cap = slots.WarmCap(3, {"claude": 1})
    wanting = [("a", "claude"), ("b", "claude"), ("c", "hermes"), ("d", "hermes")]
    assert slots.admit(cap, [], wanting) == ["a", "c", "d"]  # b meets claude's cap
    assert slots.admit(cap, ["hermes", "hermes"], wanting) == ["a"]
    assert slots.admit(slots.WarmCap(None, {"claude": 1}), ["claude"], wanting) == ["c", "d"]
    assert slots.in_order(["x", "d", "a"], ["a", "b", "d"]) == ["a", "d", "x"]


class Hands:
    """The room's hands, recorded: start marks the session running, as a launch does. They
    run in the keeper's worker thread, on a connection of their own (as the room's do)."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.acts: list[tuple[str, str]] = []

    def start(self, name: str, dashboard: bool) -> bool:
        self.acts.append(("start", name))
        with closing(connect(self.room.db_path)) as conn:
            sessions.update(conn, name, desired=DesiredState.RUNNING, pane_id="%9")
            sessions.set_status(conn, name, SessionStatus.STARTING)
        return True

    def release(self, name: str, why: str) -> None:
        self.acts.append(("release", f"{name}: {why}"))
        with closing(connect(self.room.db_path)) as conn:
            slots.released(conn, name, why)


def keeper_room(room: Room, idle_release: float | None) -> tuple[SlotKeeper, Hands]:
    for name in ("a", "b", "c"):
        sessions.register(room.conn, name, agent="sh")
    for name in ("a", "b"):
        sessions.update(room.conn, name, desired=DesiredState.RUNNING, pane_id="%1")
        sessions.set_status(room.conn, name, SessionStatus.IDLE)
    slots.queue(room.conn, "c", "max_running 2")
    slots.save(room.conn, slots.Kept(slots.WarmCap(2, {}, idle_release), ("a", "b", "c")))
    hands = Hands(room)
    return SlotKeeper(room.conn, room.home, hands), hands


def idle(seconds: float, now: float, *names: str) -> Observation:
    return Observation(states={name: PaneStatus(AgentState.IDLE, since=now - seconds,
                                                input_text="") for name in names})


def test_an_idle_agent_keeps_its_slot_until_idle_release_passes(room: Room) -> None:
    keeper, hands = keeper_room(room, idle_release=60)
    mine = sessions.all_sessions(room.conn)
    keeper.tick(mine, idle(59, 1000.0, "a", "b"), now=1000.0)
    keeper.wait()
    assert hands.acts == []  # both idle, neither for a minute yet: c waits
    assert sessions.get(room.conn, "c").status == SessionStatus.WAITING
    keeper.tick(mine, idle(61, 1000.0, "a", "b"), now=1000.0)
    keeper.wait()
    assert hands.acts == [("release", "a: slot released: idle 61s (idle_release)"),
                          ("start", "c")]  # the first in plan order goes first
    assert sessions.get(room.conn, "a").desired == DesiredState.RELEASED


def test_without_idle_release_only_a_finished_agent_gives_its_slot(room: Room) -> None:
    keeper, hands = keeper_room(room, idle_release=None)
    keeper.tick(sessions.all_sessions(room.conn), idle(3600, 1000.0, "a", "b"), now=1000.0)
    keeper.wait()
    assert hands.acts == []  # an hour idle, task not done: kept warm (idle_release is off)
    task = tasks.add(room.conn, Caller(OPERATOR), "b's part", assignee="b")
    tasks.done(room.conn, Caller(OPERATOR), task.id)
    keeper.tick(sessions.all_sessions(room.conn), idle(2, 2000.0, "a", "b"), now=2000.0)
    keeper.wait()
    assert hands.acts == [("release", "b: slot released: its task is done"), ("start", "c")]


def test_a_busy_or_noted_agent_is_never_released(room: Room) -> None:
    keeper, hands = keeper_room(room, idle_release=1)
    notes.send(room.conn, Caller(OPERATOR), "a", "for a")
    busy = Observation(states={"a": PaneStatus(AgentState.IDLE, since=0.0, input_text=""),
                               "b": PaneStatus(AgentState.WORKING, since=0.0)})
    keeper.tick(sessions.all_sessions(room.conn), busy, now=1000.0)
    keeper.wait()
    assert hands.acts == []  # a has a note on its way in; b works


def test_a_waiting_sessions_notes_are_held_and_a_released_one_comes_back(room: Room) -> None:
    keeper, hands = keeper_room(room, idle_release=None)
    note = notes.send(room.conn, Caller(OPERATOR), "c", "wait with c")
    keeper.tick(sessions.all_sessions(room.conn), idle(1, 10.0, "a", "b"), now=10.0)
    keeper.wait()
    held = deliveries.of_note(room.conn, note.id)[0]
    assert (held.state, held.held_reason) == ("held", HoldReason.WAITING_FOR_SLOT)
    slots.released(room.conn, "b", "slot released: its task is done")
    notes.send(room.conn, Caller(OPERATOR), "b", "come back")
    keeper.tick(sessions.all_sessions(room.conn), idle(1, 20.0, "a"), now=20.0)
    keeper.wait()
    # b is back in line, before c in plan order: one slot is free, and b takes it.
    assert hands.acts == [("start", "b")]
    assert sessions.get(room.conn, "c").status == SessionStatus.WAITING


def test_a_session_down_recorded_stopped_still_holds_its_slot_while_its_pane_runs(
        room: Room) -> None:
    """`down` records every session stopped before it ends their panes: no waiting
    session may take that slot meanwhile (the real Hermes test met it)."""
    keeper, hands = keeper_room(room, idle_release=None)
    sessions.set_status(room.conn, "a", SessionStatus.STOPPED)
    sessions.set_status(room.conn, "b", SessionStatus.STOPPED)
    live = PaneSnapshot("%1", 42, False, None, "sh", "a", 80, 24, None, session="a")
    seen = Observation(panes={"a": live, "b": replace(live, session="b")})
    keeper.tick(sessions.all_sessions(room.conn), seen, now=10.0)
    keeper.wait()
    assert hands.acts == []
    keeper.tick(sessions.all_sessions(room.conn), Observation(panes={"a": live}), now=10.0)
    keeper.wait()
    assert hands.acts == [("start", "c")]  # b's pane is gone: its slot is free
