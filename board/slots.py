"""The warm cap (`max_running:` in bullpen.yaml): how many agents run at once, and who
waits for a slot, in plan order.

`up` parses the cap (workers/room/warm_cap.py) and keeps it here, in the store's `meta`,
with the plan's order, so the coordinator (which does not read bullpen.yaml) admits the
next waiting session when a slot frees. A session's life under the cap:

    waiting ──slot free──▶ running ──task done and idle / idle past idle_release──▶ released
       ▲                                                                              │
       └──────────────────────── a note (or a handoff) for it ◀──────────────────────┘

A slot counts an agent process: a running session whose agent has not exited. Sessions
that need a slot take one in plan order (parents first, then file order); a per-kind cap
(`max_running: {all: 3, claude: 1}`) lets a later session of another kind go first.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from board import marks, sessions
from board.connection import Connection
from board.models import Session
from board.records import field, record
from board.vocabulary import (
    FINISHED_TASK_STATUSES,
    DesiredState,
    SessionStatus,
)

CAP_MARK = "warm_cap"
SETUP_MARK = "slot_setup:"  # + session: the plan's `setup:` for its first launch
ALL = "all"  # the room-wide key of `max_running: {all: N, KIND: M}`
# A session holding no agent process: it holds no slot either.
GONE = frozenset({SessionStatus.EXITED, SessionStatus.STOPPED})


@record(frozen=True)
class WarmCap:
    """`max_running` (room-wide, `None`: no cap) and per agent kind, `idle_release`
    (seconds an idle agent keeps its slot while another waits; `None`: for ever)."""

    total: int | None = None
    kinds: dict[str, int] = field(default_factory=dict)
    idle_release: float | None = None

    @property
    def on(self) -> bool:
        return self.total is not None or bool(self.kinds)

    def limit(self, kind: str) -> int | None:
        return self.kinds.get(kind)

    def describe(self, kind: str) -> str:
        """`max_running 2` or `max_running.claude 1`: the cap a session of `kind` meets."""
        if kind in self.kinds:
            return f"max_running.{kind} {self.kinds[kind]}"
        return f"max_running {self.total}"


@record(frozen=True)
class Kept:
    """What the coordinator needs to keep the cap: the cap, the plan's order, and whether
    the room has a dashboard (a launch must not add one to a room without)."""

    cap: WarmCap
    order: tuple[str, ...] = ()
    dashboard: bool = True


def save(conn: Connection, room: Kept) -> None:
    """Keep the cap for the coordinator (every `up` writes it; no cap: an empty value)."""
    cap = room.cap
    value = json.dumps({"total": cap.total, "kinds": cap.kinds,
                        "idle_release": cap.idle_release, "order": list(room.order),
                        "dashboard": room.dashboard}) if cap.on else ""
    marks.set_mark(conn, CAP_MARK, value)


def load(conn: Connection) -> Kept | None:
    """The cap `up` kept, or None when the room has none."""
    raw = marks.get_mark(conn, CAP_MARK)
    if not raw:
        return None
    data = json.loads(raw)
    cap = WarmCap(data.get("total"), dict(data.get("kinds") or {}), data.get("idle_release"))
    return Kept(cap, tuple(data.get("order") or ()), bool(data.get("dashboard", True)))


def in_order(names: Iterable[str], order: Sequence[str]) -> list[str]:
    """`names` in plan order; sessions the plan does not name (spawned) keep theirs, after."""
    place = {name: index for index, name in enumerate(order)}
    listed = list(names)
    return sorted(listed, key=lambda name: (place.get(name, len(place)), listed.index(name)))


def fits(cap: WarmCap, kind: str, holding: Sequence[str]) -> bool:
    """Whether one more agent of `kind` fits beside `holding` (the kinds of the agents
    holding slots)."""
    if cap.total is not None and len(holding) >= cap.total:
        return False
    limit = cap.limit(kind)
    return limit is None or sum(1 for held in holding if held == kind) < limit


def admit(cap: WarmCap, holding: Sequence[str],
          wanting: Sequence[tuple[str, str]]) -> list[str]:
    """Which of `wanting` ((name, kind), in plan order) start now beside `holding`."""
    held, admitted = list(holding), []
    for name, kind in wanting:
        if fits(cap, kind, held):
            held.append(kind)
            admitted.append(name)
    return admitted


def holds_slot(session: Session) -> bool:
    """A running session whose agent has not exited holds a slot."""
    return session.desired == DesiredState.RUNNING and session.status not in GONE


def queue(conn: Connection, name: str, why: str) -> None:
    """`name` waits for a slot (`why`: the cap it meets); `up` and `ls` show it."""
    sessions.update(conn, name, desired=DesiredState.WAITING)
    sessions.set_status(conn, name, SessionStatus.WAITING, reason=why)


def released(conn: Connection, name: str, why: str) -> None:
    """`name` gave its slot up (its pane is closed); a note puts it back in line."""
    sessions.update(conn, name, desired=DesiredState.RELEASED, pane_id=None)
    sessions.set_status(conn, name, SessionStatus.STOPPED, reason=why)


def finished(conn: Connection, name: str) -> bool:
    """Whether `name` had tasks and every one is done (its part of the plan is over)."""
    row = conn.execute(
        "SELECT count(*), coalesce(sum(CASE WHEN status NOT IN (?, ?) THEN 1 ELSE 0 END), 0)"
        " FROM tasks WHERE assignee = ?", (*sorted(FINISHED_TASK_STATUSES), name)).fetchone()
    return bool(row[0]) and not row[1]


def keep_setup(conn: Connection, name: str, setup: str | None) -> None:
    """The plan's `setup:` of a session queued before its first launch runs then."""
    if setup:
        marks.set_mark(conn, SETUP_MARK + name, setup)


def take_setup(conn: Connection, name: str) -> str | None:
    """The setup kept for `name`'s first launch (once: it is cleared)."""
    setup = marks.get_mark(conn, SETUP_MARK + name)
    if setup:
        marks.set_mark(conn, SETUP_MARK + name, "")
    return setup or None
