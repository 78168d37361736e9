"""Who may run the room: default deny, as the Hermes access model this product follows.

The operator (the human, no session variables) may do everything. A session may stop,
restart or remove only itself, unless its plan grants it named powers
(`may: [spawn, stop]` in bullpen.yaml, stored on the session). A task belongs to its
assignee and its creator: only they, the operator or a session granted `may: [tasks]`
change it (`check_task`); anyone may comment on it. Every privileged action is
audited: `privileged()` records the permission, then the outcome; a refusal is recorded
and raised as `Refused` before anything is touched.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from enum import StrEnum

from board import audit
from board.connection import Connection
from board.db import write
from board.errors import BadInput, Refused
from board.identity import Caller


class Power(StrEnum):
    """The privileged verbs; the values are what `may:` lists and the audit shows."""

    SPAWN = "spawn"
    STOP = "stop"
    RESTART = "restart"
    REMOVE = "remove"  # a worktree and branch (with --force: even with unsaved work)
    DOWN = "down"
    REGISTER = "register"
    LAND = "land"  # merge a session's branch into the base branch
    TASKS = "tasks"  # finish, block, move, assign or link a task that is not one's own
    BUDGET = "budget"  # set a session's or the room's spending limit (never one's own)


# What a session may do to itself without any grant.
SELF_POWERS = frozenset({Power.STOP, Power.RESTART, Power.REMOVE})
ALLOWED, REFUSED, DONE = "allowed", "refused", "done"


def parse_powers(values: Iterable[str], where: str = "may") -> tuple[Power, ...]:
    """Powers named in a plan; an unknown one is bad input naming the valid ones."""
    powers = []
    for value in values:
        try:
            powers.append(Power(value))
        except ValueError:
            known = ", ".join(power.value for power in Power)
            raise BadInput(f"{where}: unknown power {value!r}; use some of {known}") from None
    return tuple(dict.fromkeys(powers))


def granted(conn: Connection, session: str) -> frozenset[Power]:
    """The powers the plan granted `session` (none for an unknown session)."""
    row = conn.execute("SELECT may FROM sessions WHERE name = ?", (session,)).fetchone()
    if row is None or not row["may"]:
        return frozenset()
    return frozenset(parse_powers(json.loads(row["may"])))


def grant(conn: Connection, by: Caller, session: str, powers: Iterable[Power]) -> bool:
    """Set `session`'s granted powers (only the operator's plan grants); audited when they
    change. Returns True if they changed."""
    wanted = sorted(set(parse_powers(powers)))
    if not by.is_operator:
        audit.record(conn, by.name, "grant", session, REFUSED, "only the operator grants powers")
        raise Refused(f"session {by.name!r} may not grant powers; only the operator can")
    if sorted(granted(conn, session)) == wanted:
        return False
    with write(conn):
        conn.execute("UPDATE sessions SET may = ? WHERE name = ?",
                     (json.dumps([p.value for p in wanted]) if wanted else None, session))
    audit.record(conn, by.name, "grant", session, DONE,
                 "may: [" + ", ".join(p.value for p in wanted) + "]")
    return True


def check(conn: Connection, caller: Caller, power: Power,
          target: str | None = None, *, force: bool = False) -> None:
    """Allow or refuse `caller` using `power` on `target`; the answer is audited.

    Raises Refused (exit 2) naming who may do it and how to grant it.
    """
    _refuse_unless_allowed(conn, caller, power, target, force)
    audit.record(conn, caller.name, _action(power, force), target, ALLOWED)


def check_task(conn: Connection, caller: Caller, task_id: int, verb: str) -> None:
    """Refuse `caller` changing task `task_id` (`verb`: finish, block, move…) unless it is
    the task's assignee or creator, the operator, or granted `may: [tasks]`. A refusal and
    a use of the grant are audited; call it outside a transaction, so the refusal's audit
    entry is not rolled back with the change it refused."""
    if caller.is_operator:
        return
    row = conn.execute("SELECT assignee, created_by FROM tasks WHERE id = ?",
                       (task_id,)).fetchone()
    if row is None or caller.name in (row["assignee"], row["created_by"]):
        return  # one's own task (an unknown one is the verb's own NotFound)
    action, target = f"task {verb}", f"task {task_id}"
    if Power.TASKS in granted(conn, caller.name):
        audit.record(conn, caller.name, action, target, ALLOWED, "may: [tasks]")
        return
    owner = row["assignee"] or row["created_by"]
    reason = (f"session {caller.name!r} may not {verb} task {task_id}: it is {owner}'s"
              f" (its assignee, its creator, the operator or a session granted"
              f" may: [{Power.TASKS.value}] can)")
    audit.record(conn, caller.name, action, target, REFUSED, reason)
    raise Refused(reason)


def check_operator(conn: Connection, caller: Caller, action: str, target: str | None,
                   why: str) -> None:
    """Refuse (audited) `caller` unless it is the operator: for the verbs no plan can
    grant, such as answering an agent's question (`why` says what only the human does)."""
    if caller.is_operator:
        return
    reason = f"session {caller.name!r} may not {action} {target or ''}".rstrip() + f": {why}"
    audit.record(conn, caller.name, action, target, REFUSED, reason)
    raise Refused(reason)


# Verbs that act on a session's pane or worktree: only the machine that runs it can.
ON_ITS_MACHINE = frozenset({Power.STOP, Power.RESTART, Power.REMOVE})


def refuse_elsewhere(conn: Connection, caller: Caller, power: Power,
                     target: str | None, here: str) -> None:
    """Refuse (audited) a verb on the pane or worktree of a session another machine runs:
    whatever the grants, machine `here` has neither (its tmux, its clone are its own)."""
    if target is None or power not in ON_ITS_MACHINE:
        return
    row = conn.execute("SELECT machine FROM sessions WHERE name = ?", (target,)).fetchone()
    if row is None or row["machine"] in (None, here):
        return
    reason = (f"{target} runs on machine {row['machine']}: its pane and worktree are"
              f" there; run bullpen {power.value} {target} on {row['machine']}")
    audit.record(conn, caller.name, power.value, target, REFUSED, reason)
    raise Refused(reason)


def refuse_taken_name(conn: Connection, caller: Caller, power: Power, target: str | None,
                      name: str, *, force: bool = False) -> None:
    """Refuse (audited) a verb run on a clone whose machine name another machine of the
    room holds: the sessions of that name, their panes and worktrees are all there."""
    reason = (f"machine name {name!r} belongs to another machine of this room; nothing"
              f" done here: run bullpen {power.value} on that machine, or join this clone"
              " under a name of its own: bullpen room join URL --machine NAME")
    audit.record(conn, caller.name, _action(power, force), target, REFUSED, reason)
    raise Refused(reason)


def _refuse_unless_allowed(conn: Connection, caller: Caller, power: Power,
                           target: str | None, force: bool) -> None:
    if _may(conn, caller, power, target):
        return
    whom = f" {target}" if target and target != caller.name else ""
    reason = (f"session {caller.name!r} may not {power.value}{whom}: only the operator can"
              f" (or a session granted it with may: [{power.value}] in bullpen.yaml)")
    audit.record(conn, caller.name, _action(power, force), target, REFUSED, reason)
    raise Refused(reason)


def _action(power: Power, force: bool) -> str:
    return power.value + (" --force" if force else "")


def _may(conn: Connection, caller: Caller, power: Power, target: str | None) -> bool:
    if caller.is_operator:
        return True
    if target == caller.name and power in SELF_POWERS:
        return True
    return power in granted(conn, caller.name)


@contextmanager
def privileged(conn: Connection, caller: Caller, power: Power,
               target: str | None = None, *, force: bool = False) -> Iterator[None]:
    """Check the permission, run the action, and audit how it ended (one entry:
    `done`, `failed` with the reason, or `refused` when it never started)."""
    _refuse_unless_allowed(conn, caller, power, target, force)
    action = _action(power, force)
    try:
        yield
    except BaseException as error:
        outcome = "interrupted" if isinstance(error, KeyboardInterrupt) else "failed"
        audit.record(conn, caller.name, action, target, outcome, str(error) or type(error).__name__)
        raise
    audit.record(conn, caller.name, action, target, DONE)
