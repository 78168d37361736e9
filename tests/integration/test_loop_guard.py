"""The loop guard on a real store: chains, holds at the limit, progress, release and end,
the per-session rate limit (board/chains.py, board/loops.py)."""

from __future__ import annotations

import json

import pytest

from board import alerts, attention, audit, chains, deliveries, loops, notes, sessions, tasks
from board.errors import Refused
from board.identity import Caller
from board.room import Room
from board.vocabulary import ChainState, DeliveryState, HoldReason, SessionStatus
from tests.cli_runner import identity, run_cli
from tui.dashboard.needs import NeedKind, needs_you

pytestmark = pytest.mark.both_stores
OPERATOR = Caller("operator")


def _room(room: Room, names: str = "ab", notes_limit: int = 4, rate: int = 100) -> None:
    for name in names:
        sessions.register(room.conn, name)
    chains.set_limits(room.conn, chains.Limits(notes=notes_limit, rate=rate))


def _ping_pong(room: Room, count: int, first: int | None = None,
               pair: tuple[str, str] = ("a", "b")) -> list[int]:
    """`count` replies back and forth, each answering the last; returns their ids."""
    ids, last = [], first
    for index in range(count):
        sender, to = pair if index % 2 == 0 else pair[::-1]
        last = notes.send(room.conn, Caller(sender), to, f"answer {index}", reply_to=last).id
        ids.append(last)
    return ids


def _states(room: Room, note_id: int) -> list[tuple[str, str | None]]:
    return [(d.state, d.held_reason) for d in deliveries.of_note(room.conn, note_id)]


def test_two_agents_answering_each_other_are_held_past_the_limit(room: Room) -> None:
    _room(room, notes_limit=4)
    ids = _ping_pong(room, 7)
    chain = ids[0]
    assert [_states(room, i) for i in ids[:4]] == [[(DeliveryState.QUEUED, None)]] * 4
    assert [_states(room, i) for i in ids[4:]] == [[(DeliveryState.HELD, HoldReason.LOOP)]] * 3
    [held] = chains.held(room.conn)
    assert (held.id, held.held_notes, held.participants) == (chain, 3, ("a", "b"))
    assert held.reason is not None and held.reason.startswith("loop suspected — a↔b, 5 notes in ")
    assert held.reason.endswith(", no progress")
    # Held notes are given no way: not waiting for typing, not in the inbox.
    assert [n.id for n in deliveries.waiting(room.conn, "a")] == ids[1:4:2]
    assert [n.id for n in notes.inbox(room.conn, Caller("b"))] == [ids[0], ids[2]]
    assert notes.unread_count(room.conn, "b") == 0
    # The needs-you strip has one line for the chain, not one per note.
    needs = needs_you([], [], [], attention.held_notes(room.conn))
    assert [(n.kind, n.key) for n in needs] == [(NeedKind.LOOP, (NeedKind.LOOP, chain))]
    assert needs[0].text.startswith(f"chain {chain}: a↔b, 5 notes in ")
    assert needs[0].text.endswith(f" · 3 held · note release|end {chain}")
    [entry] = [e for e in audit.entries(room.conn) if e.action == "note hold"]
    assert (entry.actor, entry.target) == ("bullpen", f"chain {chain}")


def test_a_commit_by_a_participant_in_between_resets_the_count(room: Room) -> None:
    _room(room, notes_limit=4)
    ids = _ping_pong(room, 4)
    alerts.record_change(room.conn, "b", ["src/app.py"], commit="c0ffee", message="fix")
    ids += _ping_pong(room, 4, first=ids[-1])
    assert all(_states(room, i) == [(DeliveryState.QUEUED, None)] for i in ids)
    assert chains.held(room.conn) == []
    assert chains.place(room.conn, ids[-1])["hops_at_note"] == 4
    # An uncommitted change is not progress: the next note passes the limit.
    alerts.record_change(room.conn, "a", ["src/app.py"])
    [late] = _ping_pong(room, 1, first=ids[-1])
    assert _states(room, late) == [(DeliveryState.HELD, HoldReason.LOOP)]


def test_a_task_status_change_or_an_operator_note_is_progress(room: Room) -> None:
    _room(room, notes_limit=3)
    ids = _ping_pong(room, 3)
    task = tasks.add(room.conn, OPERATOR, "parse the input", assignee="a")
    tasks.claim(room.conn, Caller("a"), task.id)
    ids += _ping_pong(room, 3, first=ids[-1])
    operator = notes.send(room.conn, OPERATOR, "a", "keep going", reply_to=ids[-1])
    ids += _ping_pong(room, 3, first=operator.id)
    assert chains.held(room.conn) == []
    assert chains.place(room.conn, operator.id)["position"] == 7
    # A commit by someone outside the chain is not its progress.
    sessions.register(room.conn, "c")
    alerts.record_change(room.conn, "c", ["README"], commit="beef", message="docs")
    [late] = _ping_pong(room, 1, first=ids[-1])
    assert _states(room, late) == [(DeliveryState.HELD, HoldReason.LOOP)]


def _given_and_idle(room: Room, session: str, note_id: int) -> None:
    """`note_id` was typed into `session`: claimed (its turn starts), confirmed."""
    assert deliveries.claim(room.conn, session, [note_id], pane="%1:1") == [note_id]
    deliveries.confirm(room.conn, session, [note_id])


def test_a_triangle_of_notes_sent_in_turns_is_one_chain_and_is_held(room: Room) -> None:
    _room(room, "abc", notes_limit=4)
    ring = ["a", "b", "c"]
    last = notes.send(room.conn, Caller("a"), "b", "start").id
    sent = [last]
    for hop in range(1, 5):
        sender, to = ring[hop % 3], ring[(hop + 1) % 3]
        sessions.set_status(room.conn, sender, SessionStatus.IDLE)
        _given_and_idle(room, sender, last)
        sessions.set_status(room.conn, sender, SessionStatus.WORKING)
        # No --reply-to: the note joins the chain because its turn was started by one.
        last = notes.send(room.conn, Caller(sender), to, f"over to {to}").id
        sessions.set_status(room.conn, sender, SessionStatus.IDLE)  # its turn is over
        sent.append(last)
    assert {chains.place(room.conn, i)["id"] for i in sent} == {sent[0]}
    [held] = chains.held(room.conn)
    assert held.reason is not None and "a↔b↔c, 5 notes" in held.reason
    assert held.held_notes == 1
    # The held fifth note cannot be typed into c: the ring stops there.
    assert deliveries.claim(room.conn, "c", [last], pane="%1:1") == []
    # Once idle, a session's next note starts a chain of its own.
    fresh = notes.send(room.conn, Caller("b"), "c", "unrelated")
    assert chains.place(room.conn, fresh.id)["id"] == fresh.id


def test_release_lets_the_held_notes_through_once_then_counts_afresh(room: Room) -> None:
    _room(room, notes_limit=4)
    ids = _ping_pong(room, 7)
    assert loops.release(room.conn, OPERATOR, ids[0]) == 3
    assert [n.id for n in notes.inbox(room.conn, Caller("b"))] == [ids[0], ids[2], ids[4],
                                                                     ids[6]]
    assert notes.inbox(room.conn, Caller("b")) == []  # once
    with pytest.raises(Refused, match="not held"):
        loops.release(room.conn, OPERATOR, ids[0])
    more = _ping_pong(room, 5, first=ids[-1])
    assert [_states(room, i)[0][0] for i in more] == [DeliveryState.QUEUED] * 4 + [
        DeliveryState.HELD]
    [entry] = [e for e in audit.entries(room.conn) if e.action == "note release"]
    assert (entry.actor, entry.outcome) == ("operator", "done")


def test_end_drops_the_held_notes_tells_each_sender_once_and_takes_no_more(room: Room) -> None:
    _room(room, notes_limit=2)
    ids = _ping_pong(room, 5)
    assert loops.end(room.conn, OPERATOR, ids[0]) == 3
    assert chains.get(room.conn, ids[0]).state == ChainState.ENDED
    assert [_states(room, i)[0][0] for i in ids[2:]] == [DeliveryState.DROPPED] * 3
    told = {name: [n for n in notes.inbox(room.conn, Caller(name)) if n.sender == "bullpen"]
            for name in "ab"}
    assert [len(told["a"]), len(told["b"])] == [1, 1]
    assert "were not delivered" in told["a"][0].body
    assert [n.id for n in notes.inbox(room.conn, Caller("b"))] == []  # dropped stay dropped
    with pytest.raises(Refused, match="ended chain"):
        notes.send(room.conn, Caller("a"), "b", "one more", reply_to=ids[-1])
    assert attention.held_notes(room.conn) == []


def test_only_the_operator_releases_or_ends_a_chain(room: Room) -> None:
    _room(room, notes_limit=1)
    ids = _ping_pong(room, 3)
    for answer in (loops.release, loops.end):
        with pytest.raises(Refused, match="only the operator"):
            answer(room.conn, Caller("a"), ids[0])
    assert [e.outcome for e in audit.entries(room.conn)
            if e.action in ("note release", "note end")] == ["refused", "refused"]
    assert chains.get(room.conn, ids[0]).state == ChainState.HELD


def test_a_session_past_its_send_rate_is_refused_in_one_line_and_audited(room: Room) -> None:
    _room(room, "abc", notes_limit=100, rate=3)
    for index in range(3):
        notes.send(room.conn, Caller("a"), "bc"[index % 2], f"note {index}")
    with pytest.raises(Refused, match=r"a sent 3 notes in the last minute.*3/min"):
        notes.send(room.conn, Caller("a"), "b", "one too many")
    notes.send(room.conn, Caller("b"), "a", "others still send")
    for index in range(5):
        notes.send(room.conn, OPERATOR, "a", f"the operator is never limited {index}")
    [entry] = [e for e in audit.entries(room.conn) if e.action == "note send"]
    assert (entry.actor, entry.outcome) == ("a", "refused")


def test_note_show_json_and_the_cli_name_the_chain(room: Room) -> None:
    _room(room, notes_limit=2)
    tokens = {name: sessions.new_launch_token(room.conn, name) for name in "ab"}
    ids = _ping_pong(room, 2)
    env = identity(room.home, "a", tokens["a"])
    sent = run_cli("note", "send", "b", "a third", "--reply-to", str(ids[-1]),
                   cwd=room.home.parent, env=env)
    assert sent.returncode == 0, sent.stderr
    assert ", held: loop suspected — a↔b, 3 notes in " in sent.stdout
    shown = json.loads(run_cli("note", "show", str(ids[1]), "--json",
                               cwd=room.home.parent).stdout)
    assert {k: shown["chain"][k] for k in ("id", "position", "hops_at_note", "state")} == {
        "id": ids[0], "position": 2, "hops_at_note": 2, "state": ChainState.HELD}
    listed = run_cli("note", "chains", "--json", cwd=room.home.parent)
    assert [c["id"] for c in json.loads(listed.stdout)] == [ids[0]]
    refused = run_cli("note", "release", str(ids[0]), cwd=room.home.parent, env=env)
    assert (refused.returncode, refused.stderr.count("\n")) == (2, 1)
    released = run_cli("note", "release", str(ids[0]), cwd=room.home.parent)
    assert released.stdout == f"chain {ids[0]} released: 1 held note(s) go through\n"
    missing = run_cli("note", "end", "999", cwd=room.home.parent)
    assert (missing.returncode, missing.stderr.strip()) == (
        2, "bullpen: chain 999 does not exist; see bullpen note chains")
