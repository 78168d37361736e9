"""The loop guard in a live room: scripted agents that answer every note with a note,
real tmux, real git, real SQLite. Their notes carry no --reply-to: each joins the chain
because it is sent in the turn that the note typed into the agent started."""

from __future__ import annotations

import json
import re

import pytest

from board import attention
from board.vocabulary import ChainState, DeliveryState, HoldReason
from tests.e2e.conftest import Plan
from tests.waiting import wait_until
from tui.dashboard.needs import NeedKind, needs_you

pytestmark = pytest.mark.slow
LIMIT = 4  # agent-to-agent notes a chain may pass with no progress (the default is 12)
NOTE = r"^\[note #\d+ from {sender}(?: re #\d+)?\] (?P<text>.*)$"


def _answer(sender: str, to: str, *, commit: bool = False) -> dict:
    """On a note from `sender`, send one to `to` (after a commit, with `commit`)."""
    send = f'bullpen note send {to} "answer to {{text}}"'
    if commit:
        send = ('echo "{text}" >> log.txt && git add log.txt && git commit -qm "{text}" && '
                + send)
    return {"on": NOTE.format(sender=sender), "run": ["sh", "-c", send]}


def _counted(sender: str, to: str, last: int, *, commit: bool = False) -> dict:
    """Like `_answer`, for notes `ping N`: answers `ping N+1` until N reaches `last`."""
    send = f'bullpen note send {to} "ping $(({{n}} + 1))"'
    if commit:
        send = ('echo {n} >> log.txt && git add log.txt && git commit -qm "step {n}" && '
                + send)
    return {"on": NOTE.format(sender=sender).replace("(?P<text>.*)", r"ping (?P<n>\d+)"),
            "run": ["sh", "-c", f'[ {{n}} -lt {last} ] && {send}']}


def _chains(plan: Plan) -> list[dict]:
    return json.loads(plan.live.cli("note", "chains", "--json").stdout)


def _held_chain(plan: Plan, timeout: float = 60.0) -> dict:
    return wait_until(lambda: next(iter(_chains(plan)), None), timeout,
                      message=lambda: f"a held chain; typed into a: {plan.typed('a')},"
                      f" b: {plan.typed('b')}")


def _show(plan: Plan, note_id: int) -> dict:
    return json.loads(plan.live.cli("note", "show", str(note_id), "--json").stdout)


def test_two_agents_answering_every_note_are_held_at_the_limit_and_released_once(
        plan: Plan) -> None:
    plan.write({"a": {}, "b": {}},
               {"a": [_answer("b", "b")], "b": [_answer("a", "a")]},
               loop_guard={"notes": LIMIT})
    plan.up()
    first = plan.cli_as("a", "note", "send", "b", "shall", "we", "talk?")
    held = _held_chain(plan)
    assert held["id"] == first["id"]
    assert held["reason"].startswith(f"loop suspected — a↔b, {LIMIT + 1} notes in ")
    assert (held["held_notes"], held["participants"]) == (1, ["a", "b"])
    # Every agent note up to the limit was typed, in one chain; the one past it was not.
    typed = plan.typed("a") + plan.typed("b")
    assert len(typed) == LIMIT
    assert {_show(plan, note["id"])["chain"]["id"] for note in typed} == {first["id"]}
    [(waiting, recipient)] = _deliveries(plan, DeliveryState.HELD)
    shown = _show(plan, waiting)
    assert shown["chain"]["position"] == LIMIT + 1 and shown["chain"]["state"] == "held"
    assert [d["held_reason"] for d in shown["deliveries"]] == [HoldReason.LOOP]
    # The chain is in needs-you: one line naming it and how to release it.
    conn = plan.live.db()
    try:
        needs = needs_you([], [], [], attention.held_notes(conn))
    finally:
        conn.close()
    assert [need.kind for need in needs] == [NeedKind.LOOP]
    assert needs[0].text.startswith(f"chain {first['id']}: a↔b, {LIMIT + 1} notes in ")
    # Released: the held note is typed once, and the chain counts afresh to the limit.
    plan.live.cli("note", "release", str(first["id"]))
    plan.live.wait_for_line(recipient, f"[note #{waiting} from ")
    again = _held_chain(plan)
    # Named in the order they appear since the release: whoever spoke first.
    assert again["id"] == first["id"] and re.match(
        f"loop suspected — (a↔b|b↔a), {LIMIT + 1} notes in ", again["reason"])
    assert [n["id"] for n in plan.typed(recipient)].count(waiting) == 1
    assert len(plan.typed("a") + plan.typed("b")) == 2 * LIMIT + 1
    audit = json.loads(plan.live.cli("audit", "--json").stdout)
    assert [e["action"] for e in audit if e["action"].startswith("note ")] == [
        "note hold", "note release", "note hold"]
    # Ended: the held note is dropped, each sender told once, and no more join it.
    [(last, _)] = _deliveries(plan, DeliveryState.HELD)
    plan.live.cli("note", "end", str(first["id"]))
    assert _deliveries(plan, DeliveryState.DROPPED) == [(last, _show(plan, last)["recipient"])]
    told = plan.live.wait_for_line(_show(plan, last)["sender"],
                                   f"ended conversation chain {first['id']}")
    assert "1 note(s) you sent in it" in told and "not delivered" in told
    assert _show(plan, first["id"])["chain"]["state"] == ChainState.ENDED


def _deliveries(plan: Plan, state: str) -> list[tuple[int, str]]:
    """(note, recipient) of every delivery of a loop in `state`, oldest first."""
    conn = plan.live.db()
    try:
        return [(row[0], row[1]) for row in conn.execute(
            "SELECT note, recipient FROM deliveries WHERE state = ? AND held_reason = ?"
            " ORDER BY note", (state, HoldReason.LOOP))]
    finally:
        conn.close()


def test_a_conversation_with_a_commit_in_between_is_not_held(plan: Plan) -> None:
    rounds = 3 * LIMIT
    plan.write({"a": {}, "b": {}},
               {"a": [_counted("b", "b", rounds)],
                "b": [_counted("a", "a", rounds, commit=True)]},
               loop_guard={"notes": LIMIT})
    plan.up()
    first = plan.cli_as("a", "note", "send", "b", "ping", "1")
    plan.live.wait_for_line("a", f"ping {rounds}", timeout=120)
    assert _chains(plan) == []
    notes = plan.typed("a") + plan.typed("b")
    assert len(notes) == rounds  # ping 1 to ping 12, every one typed
    places = [_show(plan, note["id"])["chain"] for note in notes]
    assert {place["id"] for place in places} == {first["id"]}
    assert max(place["hops_at_note"] for place in places) <= 2
    assert {place["state"] for place in places} == {ChainState.OPEN}


def test_a_triangle_is_caught(plan: Plan) -> None:
    plan.write({"a": {}, "b": {}, "c": {}},
               {"a": [_answer("c", "b")], "b": [_answer("a", "c")], "c": [_answer("b", "a")]},
               loop_guard={"notes": LIMIT})
    plan.up()
    first = plan.cli_as("a", "note", "send", "b", "round", "we", "go")
    held = _held_chain(plan)
    assert held["id"] == first["id"]
    assert held["reason"].startswith(f"loop suspected — a↔b↔c, {LIMIT + 1} notes in ")
    assert len(plan.typed("a") + plan.typed("b") + plan.typed("c")) == LIMIT
