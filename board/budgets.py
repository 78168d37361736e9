"""Budgets: a session's (or the room's) spending limit, in tokens or US dollars.

The plan states them (`budget:` in bullpen.yaml, for the room and per session; `up`
stores them with `record_plan`); the operator sets one with `bullpen budget` (`set_limit`,
audited), which stands until the plan's value for that scope changes. At the limit the
session gets no more typed notes or pings: `enforce` sends it ONE note saying so (from
bullpen, the one note that still reaches it), then every note to it waits `held:
budget` (board/deliveries.py: `over_budget`) until a higher limit lets them flow again,
each once. Nothing is killed; the agent finishes what it is doing.

A token limit counts every token (input, output, cache reads and writes). A dollar limit
needs a price for the session's models (board/prices.py): where some are unknown it is
checked against the priced part only, and `bullpen spend` says so.
"""

from __future__ import annotations

import re
import time

from board import authority, deliveries, events, notes, sessions, spend
from board.connection import Connection
from board.db import write
from board.errors import BadInput
from board.identity import Caller
from board.records import record
from board.vocabulary import SYSTEM_SENDER, EventKind, NoteKind

ROOM = spend.ROOM
_TOKENS = re.compile(r"(?P<n>\d+(\.\d+)?)\s*(?P<unit>[kKmM]?)\s*(tokens?|tok)?")
_DOLLARS = re.compile(r"\$\s*(?P<a>\d+(\.\d+)?)|(?P<b>\d+(\.\d+)?)\s*(USD|usd|\$)")
NO_LIMIT = ("none", "off", "unlimited")


@record(frozen=True)
class Limit:
    """At most `tokens` tokens, or at most `cost` US dollars (one of the two)."""

    tokens: int | None = None
    cost: float | None = None

    def __str__(self) -> str:
        if self.cost is not None:
            return f"${self.cost:.2f}"
        return spend.tokens_text(self.tokens or 0) + " tokens"

    def reached(self, spent: spend.Spent) -> bool:
        if not spent.known:
            return False
        if self.cost is not None:
            return spent.cost >= self.cost
        return self.tokens is not None and spent.tokens.total >= self.tokens

    def to_json(self) -> dict:
        return {"tokens": self.tokens, "cost_usd": self.cost}


def parse_limit(text: str) -> Limit | None:
    """`200k`, `1.5M`, `250000` (tokens) or `$5`, `5 USD` (dollars); None for `none`.
    Anything else is bad input naming the forms."""
    value = str(text).strip()
    if value.lower() in NO_LIMIT:
        return None
    money = _DOLLARS.fullmatch(value)
    if money:
        return Limit(cost=float(money["a"] or money["b"]))
    count = _TOKENS.fullmatch(value)
    if count:
        scale = {"": 1, "k": 1_000, "m": 1_000_000}[count["unit"].lower()]
        tokens = float(count["n"]) * scale
        if tokens == int(tokens) and tokens > 0:
            return Limit(tokens=int(tokens))
    raise BadInput(f"budget {value!r}: give tokens (200k, 1.5M, 250000) or US dollars"
                   " ($5, 5 USD), or none")


def _limit(tokens: int | None, cost: float | None) -> Limit | None:
    return None if tokens is None and cost is None else Limit(tokens, cost)


def record_plan(conn: Connection, planned: dict[str, Limit | None]) -> None:
    """The plan's limits by scope (a session name, or `*`: the room). A scope whose plan
    value changed drops the operator's limit (the newer word wins); scopes the plan no
    longer names lose their plan value."""
    with write(conn):
        rows = {row["scope"]: row for row in conn.execute("SELECT * FROM budgets")}
        for scope in {*rows, *planned}:
            limit = planned.get(scope)
            tokens, cost = (limit.tokens, limit.cost) if limit else (None, None)
            row = rows.get(scope)
            if row is None:
                if limit is not None:
                    conn.execute("INSERT INTO budgets (scope, plan_tokens, plan_cost)"
                                 " VALUES (?, ?, ?)", (scope, tokens, cost))
                continue
            if (row["plan_tokens"], row["plan_cost"]) != (tokens, cost):
                conn.execute("UPDATE budgets SET plan_tokens = ?, plan_cost = ?,"
                             " set_tokens = NULL, set_cost = NULL, set_by = NULL,"
                             " set_at = NULL WHERE scope = ?", (tokens, cost, scope))


def effective(conn: Connection, scope: str) -> Limit | None:
    """The limit in force for `scope`: the operator's if set, else the plan's."""
    row = conn.execute("SELECT * FROM budgets WHERE scope = ?", (scope,)).fetchone()
    if row is None:
        return None
    if row["set_at"] is not None:
        return _limit(row["set_tokens"], row["set_cost"])
    return _limit(row["plan_tokens"], row["plan_cost"])


def set_limit(conn: Connection, caller: Caller, scope: str, limit: Limit | None) -> None:
    """The operator's limit for `scope` (None: no limit), audited; held notes flow at once
    if it is no longer reached."""
    target = "room" if scope == ROOM else scope
    with authority.privileged(conn, caller, authority.Power.BUDGET, target):
        tokens, cost = (limit.tokens, limit.cost) if limit else (None, None)
        with write(conn):
            conn.execute("INSERT INTO budgets (scope, set_tokens, set_cost, set_by, set_at)"
                         " VALUES (?, ?, ?, ?, ?) ON CONFLICT(scope) DO UPDATE SET"
                         " set_tokens = excluded.set_tokens, set_cost = excluded.set_cost,"
                         " set_by = excluded.set_by, set_at = excluded.set_at",
                         (scope, tokens, cost, caller.name, time.time()))
            events.emit(conn, EventKind.BUDGET_SET, None if scope == ROOM else scope, None,
                        limit=str(limit) if limit else None)
    enforce(conn, sessions.names(conn))


def reached(conn: Connection, name: str, spent: dict[str, spend.Spent]) -> str | None:
    """Why `name` is at its budget (its own, or the room's), or None."""
    own, room = effective(conn, name), effective(conn, ROOM)
    mine = spent.get(name, spend.Spent())
    if own is not None and own.reached(mine):
        return f"{spend.short(mine)} of this session's {own} budget"
    total = spend.room_total(spent)
    if room is not None and room.reached(total):
        return f"{ROOMS} {spend.short(total)} of its {room} budget"
    return None


ROOMS = "the room's"  # how `reached` starts when the room's budget is the one reached
CANNOT_ENFORCE = "cannot enforce"  # how a budget on a spend bullpen cannot read is named


def unenforceable(conn: Connection, spent: dict[str, spend.Spent]) -> dict[str, str]:
    """Sessions with a budget (their own, or the room's) on a spend bullpen cannot read:
    why each cannot be enforced (a needs-you entry, never a silent unknown)."""
    room = effective(conn, ROOM)
    found = {}
    for name, one in spent.items():
        if one.unreadable is None:
            continue
        own = effective(conn, name)
        if own is not None or room is not None:
            whose = f"this session's {own}" if own is not None else f"{ROOMS} {room}"
            found[name] = (f"{CANNOT_ENFORCE} {whose} budget: its spend is"
                           f" {spend.UNREADABLE} ({one.unreadable})")
    return found


def raise_command(name: str, why: str) -> str:
    """The command that raises the budget `why` names (the session's, or the room's)."""
    return f"bullpen budget {'--room' if why.startswith(ROOMS) else name} LIMIT"


def notice_text(name: str, why: str) -> str:
    return (f"budget reached: {why}. Notes and pings to you are held until the operator"
            f" raises it ({raise_command(name, why)}); nothing is stopped.")


def enforce(conn: Connection, names: list[str]) -> list[str]:
    """Hold or release each session's notes as its budget says; returns the sessions
    newly at their budget (each sent its one note)."""
    spent = spend.by_session(conn)
    newly = []
    for name in names:
        why = reached(conn, name, spent)
        told = deliveries.over_budget(conn, name)
        if why is not None and told is None:
            note = notes.send(conn, SYSTEM_SENDER, name, notice_text(name, why),
                              kind=NoteKind.SYSTEM)
            deliveries.set_over_budget(conn, name, note.id)
            deliveries.budget_hold(conn, name, deliveries.waiting(conn, name))
            with write(conn):
                events.emit(conn, EventKind.BUDGET_REACHED, name, note.id, why=why)
            newly.append(name)
        elif why is None and told is not None:
            deliveries.set_over_budget(conn, name, None)
            deliveries.release_budget(conn, name)
    return newly


def over(conn: Connection) -> dict[str, int]:
    """Sessions at their budget now -> the id of the note that told them."""
    return deliveries.all_over_budget(conn)


def rows(conn: Connection) -> dict[str, tuple[Limit | None, str | None]]:
    """Every scope with a limit: (the limit in force, who set it: None for the plan)."""
    found: dict[str, tuple[Limit | None, str | None]] = {}
    for row in conn.execute("SELECT * FROM budgets ORDER BY scope").fetchall():
        limit = effective(conn, row["scope"])
        if limit is not None:
            found[row["scope"]] = (limit, row["set_by"] if row["set_at"] else None)
    return found
