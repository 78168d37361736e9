"""Default deny: the operator runs the room; a session acts on itself or by a plan's grant.

Every decision lands in the audit table (real SQLite file), refusals included.
"""

from __future__ import annotations

import pytest

from board import audit, authority, sessions
from board.authority import Power
from board.errors import BadInput, Refused
from board.identity import Caller
from board.room import Room

pytestmark = pytest.mark.both_stores

OPERATOR = Caller("operator")


def _outcomes(room: Room) -> list[tuple[str, str, str | None, str]]:
    return [(e.actor, e.action, e.target, e.outcome) for e in audit.entries(room.conn)]


def test_a_session_may_not_act_on_another_and_the_refusal_is_audited(room: Room) -> None:
    for name in ("a", "b"):
        sessions.register(room.conn, name)
    for power in (Power.SPAWN, Power.STOP, Power.RESTART, Power.REMOVE, Power.DOWN):
        with pytest.raises(Refused, match=f"session 'b' may not {power.value}"):
            authority.check(room.conn, Caller("b"), power, "a")
    assert _outcomes(room) == [("b", p.value, "a", "refused") for p in
                               (Power.SPAWN, Power.STOP, Power.RESTART, Power.REMOVE,
                                Power.DOWN)]
    assert all("only the operator can" in e.detail for e in audit.entries(room.conn))


def test_a_session_may_stop_and_restart_itself_and_the_operator_anything(room: Room) -> None:
    sessions.register(room.conn, "b")
    authority.check(room.conn, Caller("b"), Power.STOP, "b")
    authority.check(room.conn, Caller("b"), Power.RESTART, "b")
    authority.check(room.conn, OPERATOR, Power.DOWN)
    with pytest.raises(Refused):
        authority.check(room.conn, Caller("b"), Power.SPAWN, "b2")
    assert [row[3] for row in _outcomes(room)] == ["allowed", "allowed", "allowed", "refused"]


def test_a_granted_power_is_allowed_and_granting_is_audited(room: Room) -> None:
    for name in ("lead", "a"):
        sessions.register(room.conn, name)
    assert authority.grant(room.conn, OPERATOR, "lead", [Power.SPAWN, Power.STOP])
    assert not authority.grant(room.conn, OPERATOR, "lead", [Power.STOP, Power.SPAWN])
    authority.check(room.conn, Caller("lead"), Power.SPAWN, "helper")
    authority.check(room.conn, Caller("lead"), Power.STOP, "a")
    with pytest.raises(Refused):
        authority.check(room.conn, Caller("lead"), Power.DOWN)
    with pytest.raises(Refused, match="only the operator can"):
        authority.grant(room.conn, Caller("lead"), "a", [Power.DOWN])
    assert authority.granted(room.conn, "a") == frozenset()
    assert _outcomes(room)[0] == ("operator", "grant", "lead", "done")
    assert audit.entries(room.conn)[0].detail == "may: [spawn, stop]"


def test_privileged_audits_how_the_action_ended(room: Room) -> None:
    sessions.register(room.conn, "a")
    with authority.privileged(room.conn, OPERATOR, Power.STOP, "a"):
        pass
    with pytest.raises(RuntimeError), \
            authority.privileged(room.conn, OPERATOR, Power.REMOVE, "a", force=True):
        raise RuntimeError("git refused")
    assert _outcomes(room) == [("operator", "stop", "a", "done"),
                               ("operator", "remove --force", "a", "failed")]
    assert audit.entries(room.conn)[-1].detail == "git refused"


def test_an_unknown_power_in_a_plan_is_bad_input() -> None:
    with pytest.raises(BadInput, match="unknown power 'rule'; use some of spawn, stop"):
        authority.parse_powers(["spawn", "rule"])
