"""The room's side of the warm cap (board/slots.py): which sessions `up` starts and which
wait for a slot, and the hands the coordinator starts and releases sessions with.

`up` decides under the same admission lock the coordinator takes
(`workers.coordinator.slots.admitting`), from the panes as they are: agents alive in
their panes hold slots; the plan's new sessions, those whose pane was gone and those
already waiting take the free ones in plan order (parents first, then file order).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from board import sessions
from board import slots as board_slots
from board.connection import Connection
from board.models import Session
from board.room import open_operator_room
from board.vocabulary import DesiredState
from workers.agents.kinds import kind_of
from workers.coordinator.slots import admitting
from workers.room import config as config_file
from workers.room import spawn
from workers.tmux import layout
from workers.tmux.panes import PaneSnapshot, close_pane, owned, snapshot_all
from workers.tmux.server import RoomServer, TmuxError

log = logging.getLogger(__name__)


def plan_order(plan: config_file.Config) -> list[config_file.SessionPlan]:
    """The plan's sessions parents first, then in file order: each next one is the first
    in the file whose parents are all placed (the warm cap's line, and the order the
    plan's tasks are made in). The plan has no cycle (config checks it)."""
    ordered: list[config_file.SessionPlan] = []
    placed: set[str] = set()
    while len(ordered) < len(plan.sessions):
        item = next(item for item in plan.sessions if item.name not in placed
                    and all(parent in placed for parent in item.after))
        ordered.append(item)
        placed.add(item.name)
    return ordered


@dataclass
class Gate:
    """What one `up` may start: every session when the plan has no cap."""

    cap: board_slots.WarmCap
    order: tuple[str, ...] = ()
    admitted: set[str] = field(default_factory=set)
    kinds: dict[str, str] = field(default_factory=dict)  # session -> its agent kind
    to_start: list[str] = field(default_factory=list)  # waiting ones a free slot admits
    conn: Connection | None = None
    say: Callable[[str], None] = field(default=lambda line: None)

    def ordered(self, new: Sequence[config_file.SessionPlan]) -> list[config_file.SessionPlan]:
        """The new sessions in the order they start: the plan's under a cap."""
        if not self.cap.on:
            return list(new)
        by_name = {item.name: item for item in new}
        return [by_name[name] for name in board_slots.in_order(by_name, self.order)]

    def queued(self, name: str) -> bool:
        """Put `name` in line (and say so) if it waits; whether it does."""
        why = self.waits(name)
        if why and self.conn is not None:
            board_slots.queue(self.conn, name, why)
            self.say(f"{name} waits for a slot ({why})")
        return why is not None

    def setup(self, name: str) -> str | None:
        """The plan's `setup:` kept for a waiting session's first launch (once)."""
        return board_slots.take_setup(self.conn, name) if self.conn is not None else None

    def waits(self, name: str) -> str | None:
        """Why `name` waits for a slot (the cap it meets), or None: it starts now."""
        if not self.cap.on or name in self.admitted:
            return None
        return self.cap.describe(self.kinds.get(name, ""))


@contextmanager
def gate(home: Path, conn: Connection, server: RoomServer, plan: config_file.Config,
         new: Sequence[config_file.SessionPlan], mine: Sequence[Session],
         dashboard: bool, say: Callable[[str], None]) -> Iterator[Gate]:
    """Decide, under the admission lock (held while `up` launches), who starts now;
    `say` the sessions that still wait since an earlier `up`."""
    order = [item.name for item in plan_order(plan)]
    board_slots.save(conn, board_slots.Kept(plan.warm_cap, tuple(order), dashboard))
    waiting = {s.name for s in mine if s.desired == DesiredState.WAITING}
    if not plan.warm_cap.on:  # the cap was taken out of the plan: nobody waits any more
        yield Gate(plan.warm_cap, to_start=board_slots.in_order(waiting, order), conn=conn,
                   say=say)
        return
    with admitting(home):
        panes = snapshot_all(server, with_content=False)
        kinds = {item.name: _kind(item.agent) for item in new} | {
            s.name: _kind(s.agent) for s in mine}
        found = Gate(plan.warm_cap, tuple(order), kinds=kinds, conn=conn, say=say)
        holding = [found.kinds[s.name] for s in mine if _alive(panes, s)]
        wanting = [item.name for item in new] + [
            s.name for s in mine if s.name in waiting or (
                s.desired == DesiredState.RUNNING and not _alive(panes, s))]
        found.admitted = set(board_slots.admit(plan.warm_cap, holding, [
            (name, found.kinds[name]) for name in board_slots.in_order(wanting, order)]))
        found.to_start = [name for name in board_slots.in_order(waiting, order)
                          if name in found.admitted]
        for name in board_slots.in_order(waiting - found.admitted, order):
            why = found.waits(name) or ""
            board_slots.queue(conn, name, why)  # `down` recorded it stopped
            say(f"{name} waits for a slot ({why})")
        yield found


def _kind(agent: str | None) -> str:
    return kind_of(agent).value


def _alive(panes: dict[str, PaneSnapshot], session: Session) -> bool:
    if session.desired != DesiredState.RUNNING:
        return False
    snap = owned(panes, session.pane, session.name)
    return snap is not None and not snap.dead


class RoomHands:
    """How the coordinator starts and releases sessions: the room's own launch."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.server = layout.server_for(home.parent)

    def start(self, name: str, dashboard: bool) -> bool:
        if not self.server.has_session(layout.ROOM_SESSION):
            return False  # `down` is under way; a launch would bring tmux back
        try:
            with open_operator_room(self.home) as room:
                spawn.launch(room, name, server=self.server, with_dashboard=dashboard,
                             setup=board_slots.take_setup(room.conn, name))
        except TmuxError:
            if not self.server.has_session(layout.ROOM_SESSION):
                return False  # `down` ended tmux meanwhile: it waits again at the next up
            raise
        return True

    def release(self, name: str, why: str) -> None:
        with open_operator_room(self.home) as room:
            session = sessions.require(room.conn, name)
            board_slots.released(room.conn, name, why)  # first: it is no longer running
        if session.pane and layout.owns_pane(self.server, session.pane, name):
            for line in close_pane(self.server, session.pane, name)[1]:
                log.warning("%s", line)
