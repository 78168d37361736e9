"""Budgets on a real store (SQLite and PostgreSQL): at the limit one note from bullpen,
every other note held `budget` (for a hook as for typing), the room's total counts,
raising lets each held note through once, the plan's word and the operator's, and a
Claude transcript whose messages span several lines counted once, read incrementally."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from board import audit, budgets, deliveries, notes, sessions, spend
from board.errors import BadInput, Refused
from board.identity import Caller
from board.room import Room
from board.vocabulary import SYSTEM_SENDER, DeliveryState, HoldReason
from tests.cli_runner import run_cli
from workers.agents import agent_files
from workers.agents.claude import usage as claude_usage

pytestmark = pytest.mark.both_stores
OPERATOR = Caller("operator")


def spent(room: Room, name: str, total: int) -> None:
    spend.record(room.conn, name, {"m": spend.Usage(input=total - 10, output=10)}, "test")


def test_at_its_budget_a_session_is_told_once_and_its_notes_wait(room: Room) -> None:
    sessions.register(room.conn, "coder")
    budgets.record_plan(room.conn, {"coder": budgets.parse_limit("1k")})
    spent(room, "coder", 999)
    assert budgets.enforce(room.conn, ["coder"]) == []
    early = notes.send(room.conn, "operator", "coder", "before the limit")
    spent(room, "coder", 1000)
    assert budgets.enforce(room.conn, ["coder"]) == ["coder"]
    assert budgets.enforce(room.conn, ["coder"]) == []  # told once
    late = notes.send(room.conn, "operator", "coder", "after the limit")
    waiting = deliveries.waiting(room.conn, "coder")
    assert [n.sender for n in deliveries.budget_hold(room.conn, "coder", waiting)] == [
        SYSTEM_SENDER]
    notice = deliveries.over_budget(room.conn, "coder")
    # A hook pulling notes into the turn gets only the notice too.
    assert [n.id for n in notes.take_pending(room.conn, "coder")] == [notice]
    for note in (early, late):
        shown = deliveries.of_note(room.conn, note.id)[0]
        assert (shown.state, shown.held_reason) == (DeliveryState.HELD, HoldReason.BUDGET)
    assert notes.take_pending(room.conn, "coder") == []

    budgets.set_limit(room.conn, OPERATOR, "coder", budgets.parse_limit("2k"))
    assert deliveries.over_budget(room.conn, "coder") is None
    assert [n.id for n in notes.take_pending(room.conn, "coder")] == [early.id, late.id]
    assert notes.take_pending(room.conn, "coder") == []  # each once
    assert [(e.action, e.target, e.outcome) for e in audit.entries(room.conn)] == [
        ("budget", "coder", "done")]


def test_the_rooms_budget_counts_every_session(room: Room) -> None:
    for name in ("a", "b"):
        sessions.register(room.conn, name)
    budgets.record_plan(room.conn, {budgets.ROOM: budgets.parse_limit("$1")})
    spend.record(room.conn, "a", {"claude-sonnet-4-5": spend.Usage(input=200_000)}, "t")
    spend.record(room.conn, "b", {"claude-sonnet-4-5": spend.Usage(output=20_000)}, "t")
    assert budgets.enforce(room.conn, ["a", "b"]) == []  # $0.60 + $0.30
    spend.record(room.conn, "b", {"claude-sonnet-4-5": spend.Usage(output=30_000)}, "t")
    assert sorted(budgets.enforce(room.conn, ["a", "b"])) == ["a", "b"]
    told = notes.inbox(room.conn, Caller("a"))
    assert len(told) == 1 and "the room's" in told[0].body and "$1.00" in told[0].body
    assert "bullpen budget --room LIMIT" in told[0].body


def test_spend_heads_every_column_and_the_last_says_notes_are_held(room: Room) -> None:
    sessions.register(room.conn, "coder")
    budgets.record_plan(room.conn, {"coder": budgets.parse_limit("100")})
    spent(room, "coder", 150)
    budgets.enforce(room.conn, ["coder"])

    shown = run_cli("spend", cwd=room.home.parent)

    assert shown.returncode == 0, shown
    header, coder = shown.stdout.splitlines()[:2]
    assert header.split()[0] == "session" and header.split()[-2:] == ["budget", "notes"]
    assert coder.startswith("coder") and coder.endswith("held: budget")


def test_a_session_may_not_raise_its_own_budget(room: Room) -> None:
    sessions.register(room.conn, "coder")
    with pytest.raises(Refused):
        budgets.set_limit(room.conn, Caller("coder"), "coder", budgets.parse_limit("1M"))
    assert audit.entries(room.conn)[-1].outcome == "refused"


def test_the_operators_limit_stands_until_the_plan_changes(room: Room) -> None:
    budgets.record_plan(room.conn, {"coder": budgets.parse_limit("100k")})
    budgets.set_limit(room.conn, OPERATOR, "coder", budgets.parse_limit("300k"))
    budgets.record_plan(room.conn, {"coder": budgets.parse_limit("100k")})  # `up` again
    assert budgets.effective(room.conn, "coder") == budgets.Limit(tokens=300_000)
    budgets.record_plan(room.conn, {"coder": budgets.parse_limit("$5")})  # edited
    assert budgets.effective(room.conn, "coder") == budgets.Limit(cost=5.0)
    budgets.record_plan(room.conn, {})
    assert budgets.effective(room.conn, "coder") is None


@pytest.mark.parametrize("text, limit", [
    ("200k", budgets.Limit(tokens=200_000)), ("1.5M", budgets.Limit(tokens=1_500_000)),
    ("250000", budgets.Limit(tokens=250_000)), ("$5", budgets.Limit(cost=5.0)),
    ("5 USD", budgets.Limit(cost=5.0)), ("$0.50", budgets.Limit(cost=0.5)), ("none", None)])
def test_limits_are_tokens_or_dollars(text: str, limit: budgets.Limit | None) -> None:
    assert budgets.parse_limit(text) == limit


@pytest.mark.parametrize("text", ["", "lots", "-5", "0", "5 EUR", "1.5"])
def test_other_limits_are_refused(text: str) -> None:
    with pytest.raises(BadInput, match="give tokens"):
        budgets.parse_limit(text)


def _assistant(message_id: str, usage: dict, block: str) -> str:
    return json.dumps({"type": "assistant", "message": {
        "id": message_id, "model": "claude-sonnet-4-5-20250929", "usage": usage,
        "content": [{"type": block}]}}) + "\n"


def test_a_claude_message_on_several_lines_is_counted_once(room: Room, tmp_path: Path,
                                                          monkeypatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    folder = tmp_path / "claude" / "projects" / "-repo-worktrees-coder"
    folder.mkdir(parents=True)
    sessions.register(room.conn, "coder")
    session, home = sessions.require(room.conn, "coder"), room.home
    agent_files.write_value(home, "coder", agent_files.CONVERSATION, "conv-1")
    log = folder / "conv-1.jsonl"
    usage = {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 100,
             "cache_creation_input_tokens": 7}
    log.write_text(_assistant("msg_1", usage, "thinking") + _assistant("msg_1", usage, "text")
                   + '{"type": "user"}\n' + _assistant("msg_2", {**usage, "output_tokens": 1},
                                                        "tool_use")[:-20])  # half written
    first = claude_usage.read_spend(home, session, {})
    assert first is not None
    assert first.by_model == {"claude-sonnet-4-5-20250929": spend.Usage(10, 5, 100, 7)}
    with log.open("a") as handle:  # msg_2's line finished, then its last line, updated
        handle.write(_assistant("msg_2", {**usage, "output_tokens": 1}, "tool_use")[-20:])
        handle.write(_assistant("msg_2", {**usage, "output_tokens": 9}, "tool_use"))
    second = claude_usage.read_spend(home, session, json.loads(json.dumps(first.state)))
    assert second is not None
    assert second.by_model == {"claude-sonnet-4-5-20250929": spend.Usage(20, 14, 200, 14)}
    assert second.state["offsets"][str(log)] == log.stat().st_size


def test_the_coordinator_reads_on_and_a_new_session_of_an_old_name_starts_at_nothing(
        room: Room, tmp_path: Path, monkeypatch) -> None:
    from workers.coordinator.spending import Spending

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    folder = tmp_path / "claude" / "projects" / "-repo-worktrees-coder"
    folder.mkdir(parents=True)
    sessions.register(room.conn, "coder", agent="claude")
    agent_files.write_value(room.home, "coder", agent_files.CONVERSATION, "conv-1")
    usage = {"input_tokens": 10, "output_tokens": 5}
    (folder / "conv-1.jsonl").write_text(_assistant("msg_1", usage, "text"))
    keeper = Spending(room.conn, room.home)
    assert keeper.read(sessions.require(room.conn, "coder")) is True
    assert spend.of_session(room.conn, "coder").tokens.total == 15
    with (folder / "conv-1.jsonl").open("a") as handle:
        handle.write(_assistant("msg_2", usage, "text"))
    again = Spending(room.conn, room.home)  # a new coordinator: reads on from the board
    assert again.read(sessions.require(room.conn, "coder")) is True
    assert spend.of_session(room.conn, "coder").tokens.total == 30

    sessions.unregister(room.conn, "coder")
    agent_files.forget(room.home, "coder", agent_files.CONVERSATION)
    sessions.register(room.conn, "coder", agent="claude")  # later, with no conversation yet
    assert again.read(sessions.require(room.conn, "coder")) is True
    assert not spend.of_session(room.conn, "coder").known
