"""Spend that cannot go down, on a real store (SQLite and PostgreSQL) through the
coordinator's spend reader: a session that rewrites, cuts or deletes its own records
(Claude's transcript, Codex's session file, Hermes' state.db) keeps the highest figure
read, the operator gets a change alert, and a budget reached stays reached."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from board import budgets, deliveries, notes, sessions, spend
from board.identity import Caller
from board.room import Room
from board.vocabulary import OPERATOR
from tests.conftest import git
from workers.agents import agent_files
from workers.coordinator.spending import Spending

pytestmark = pytest.mark.both_stores
MODEL = "claude-sonnet-4-5-20250929"


def _assistant(message_id: str, input_tokens: int, output_tokens: int) -> str:
    return json.dumps({"type": "assistant", "message": {
        "id": message_id, "model": MODEL, "content": [{"type": "text"}],
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}}}) + "\n"


def alerts(room: Room) -> list[str]:
    """The change alerts the operator got since the last look."""
    return [note.body for note in notes.inbox(room.conn, Caller(OPERATOR))
            if note.body.startswith("[change alert]")]


def held(room: Room, name: str) -> bool:
    return deliveries.over_budget(room.conn, name) is not None


@pytest.fixture
def claude_room(room: Room, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                ) -> tuple[Room, Path, Spending]:
    """cc19, a Claude session with a 100k budget and one transcript (a 150,010-token
    message already in it), read by the coordinator: held for budget."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    folder = tmp_path / "claude" / "projects" / "-repo-worktrees-cc19"
    folder.mkdir(parents=True)
    sessions.register(room.conn, "cc19", agent="claude")
    agent_files.write_value(room.home, "cc19", agent_files.CONVERSATION, "conv-1")
    budgets.record_plan(room.conn, {"cc19": budgets.parse_limit("100k")})
    log = folder / "conv-1.jsonl"
    log.write_text(_assistant("msg_1", 150_000, 10))
    keeper = Spending(room.conn, room.home)
    keeper.follow([sessions.require(room.conn, "cc19")], now=1_000.0)
    assert spend.of_session(room.conn, "cc19").tokens.total == 150_010
    assert held(room, "cc19")
    return room, log, keeper


def test_a_line_with_the_same_message_id_and_a_smaller_usage_lowers_nothing(
        claude_room: tuple[Room, Path, Spending]) -> None:
    room, log, keeper = claude_room
    with log.open("a") as handle:
        handle.write(_assistant("msg_1", 1, 1))
    keeper.follow([sessions.require(room.conn, "cc19")], now=2_000.0)
    assert spend.of_session(room.conn, "cc19").tokens.total == 150_010
    assert held(room, "cc19")
    assert alerts(room) == ["[change alert] cc19's message msg_1 was rewritten smaller:"
                            " its spend stays 150.0k tokens"]
    with log.open("a") as handle:  # later messages still count on top
        handle.write(_assistant("msg_2", 5, 5))
    keeper.follow([sessions.require(room.conn, "cc19")], now=3_000.0)
    assert spend.of_session(room.conn, "cc19").tokens.total == 150_020
    assert alerts(room) == []  # told once


@pytest.mark.parametrize("how", ["cut", "deleted"])
def test_a_transcript_cut_or_deleted_keeps_its_figure_and_the_budget_holds(
        claude_room: tuple[Room, Path, Spending], how: str) -> None:
    room, log, keeper = claude_room
    if how == "cut":
        log.write_text("")
    else:
        log.unlink()
    keeper.follow([sessions.require(room.conn, "cc19")], now=2_000.0)
    assert spend.of_session(room.conn, "cc19").tokens.total == 150_010
    assert held(room, "cc19")
    log.write_text(_assistant("msg_9", 10, 10))  # what it writes next counts on top
    keeper.follow([sessions.require(room.conn, "cc19")], now=3_000.0)
    assert spend.of_session(room.conn, "cc19").tokens.total == 150_030
    assert held(room, "cc19")
    assert alerts(room) == [f"[change alert] cc19's transcript conv-1.jsonl was {how}:"
                            " its spend stays 150.0k tokens"]


def test_a_transcript_folder_deleted_keeps_its_figure(
        claude_room: tuple[Room, Path, Spending]) -> None:
    room, log, keeper = claude_room
    log.unlink()
    log.parent.rmdir()
    for now in (2_000.0, 3_000.0):
        keeper.follow([sessions.require(room.conn, "cc19")], now=now)
    assert spend.of_session(room.conn, "cc19").tokens.total == 150_010
    assert held(room, "cc19")
    assert alerts(room) == ["[change alert] cc19's transcripts were deleted: its spend"
                            " stays 150.0k tokens"]


def test_a_line_of_the_same_message_id_under_another_model_lowers_nothing(
        claude_room: tuple[Room, Path, Spending]) -> None:
    room, log, keeper = claude_room
    with log.open("a") as handle:
        handle.write(_assistant("msg_1", 1, 1).replace(MODEL, "claude-haiku-4-5"))
    keeper.follow([sessions.require(room.conn, "cc19")], now=2_000.0)
    assert spend.of_session(room.conn, "cc19").tokens.total == 150_012
    assert held(room, "cc19")


def test_a_reader_that_lost_its_place_cannot_lower_the_stored_figure(
        claude_room: tuple[Room, Path, Spending]) -> None:
    room, log, _keeper = claude_room
    log.write_text(_assistant("msg_1", 1, 1))  # rewritten in place, smaller
    room.conn.execute("DELETE FROM meta WHERE key LIKE 'spend_state:%'")
    again = Spending(room.conn, room.home)  # a new coordinator, the place lost
    again.follow([sessions.require(room.conn, "cc19")], now=2_000.0)
    assert spend.of_session(room.conn, "cc19").tokens.total == 150_010
    assert held(room, "cc19")
    assert alerts(room) == ["[change alert] cc19's records read below the figure counted:"
                            " its spend stays 150.0k tokens"]


def _token_count(total: int) -> str:
    return json.dumps({"type": "event_msg", "payload": {"type": "token_count", "info": {
        "total_token_usage": {"input_tokens": total, "cached_input_tokens": 0,
                              "output_tokens": 10}}}}) + "\n"


def test_a_codex_session_file_cut_keeps_its_figure(room: Room, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    worktree = tmp_path / "wt"
    worktree.mkdir()
    sessions.register(room.conn, "cx", agent="codex", worktree=str(worktree))
    budgets.record_plan(room.conn, {"cx": budgets.parse_limit("100k")})
    day = tmp_path / "codex" / "sessions" / "2026" / "12" / "04"
    day.mkdir(parents=True)
    rollout = day / "rollout-1.jsonl"
    meta = json.dumps({"type": "session_meta", "payload": {"id": "c1", "cwd": str(worktree)}})
    rollout.write_text(meta + "\n" + _token_count(150_000))
    keeper = Spending(room.conn, room.home)
    keeper.follow([sessions.require(room.conn, "cx")], now=1_000.0)
    assert spend.of_session(room.conn, "cx").tokens.total == 150_010 and held(room, "cx")
    rollout.write_text(meta + "\n")
    keeper.follow([sessions.require(room.conn, "cx")], now=2_000.0)
    assert spend.of_session(room.conn, "cx").tokens.total == 150_010 and held(room, "cx")
    assert alerts(room) == ["[change alert] cx's session file rollout-1.jsonl was cut:"
                            " its spend stays 150.0k tokens"]
    rollout.unlink()
    for now in (3_000.0, 4_000.0):
        keeper.follow([sessions.require(room.conn, "cx")], now=now)
    assert spend.of_session(room.conn, "cx").tokens.total == 150_010 and held(room, "cx")
    assert alerts(room) == ["[change alert] cx's session file rollout-1.jsonl was deleted:"
                            " its spend stays 150.0k tokens"]


def hermes_store(path: Path, shape: str) -> sqlite3.Connection:
    """A state.db of the shape a Hermes release writes (the columns bullpen reads)."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, model TEXT,"
                 " started_at REAL NOT NULL, cwd TEXT, input_tokens INTEGER DEFAULT 0,"
                 " output_tokens INTEGER DEFAULT 0, cache_read_tokens INTEGER DEFAULT 0,"
                 " cache_write_tokens INTEGER DEFAULT 0, reasoning_tokens INTEGER DEFAULT 0)"
                 if shape != "unknown" else
                 "CREATE TABLE sessions (id TEXT PRIMARY KEY, started_at REAL, cwd TEXT)")
    if shape == "0.19":
        conn.execute("CREATE TABLE session_model_usage (session_id TEXT, model TEXT,"
                     " task TEXT DEFAULT '', input_tokens INTEGER, output_tokens INTEGER,"
                     " cache_read_tokens INTEGER, cache_write_tokens INTEGER)")
    conn.commit()
    return conn


def hermes_turn(conn: sqlite3.Connection, shape: str, conversation: str, cwd: Path,
                tokens: tuple[int, int, int, int]) -> None:
    """What Hermes records of a conversation's tokens (replacing what it held)."""
    conn.execute("INSERT OR IGNORE INTO sessions (id, source, model, started_at, cwd)"
                 " VALUES (?, 'cli', 'stub-model', 4102444800, ?)", (conversation, str(cwd)))
    if shape == "0.19":
        conn.execute("DELETE FROM session_model_usage WHERE session_id = ?", (conversation,))
        conn.execute("INSERT INTO session_model_usage VALUES (?, 'stub-model', '', ?, ?, ?, ?)",
                     (conversation, *tokens))
    else:
        conn.execute("UPDATE sessions SET input_tokens = ?, output_tokens = ?,"
                     " cache_read_tokens = ?, cache_write_tokens = ? WHERE id = ?",
                     (*tokens, conversation))
    conn.commit()


@pytest.fixture
def hermes_session(room: Room, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """hx, a Hermes session on its own profile, its worktree made (no state.db yet)."""
    root = tmp_path / "hermes"
    (root / "profiles" / "hx").mkdir(parents=True)
    monkeypatch.setenv("HERMES_HOME", str(root))
    worktree = tmp_path / "wt-hx"  # a worktree of the room's repository (`ls` reads it)
    git(room.home.parent, "worktree", "add", "-q", "-b", "hx", str(worktree))
    sessions.register(room.conn, "hx", agent="hermes", profile="hx", worktree=str(worktree))
    budgets.record_plan(room.conn, {"hx": budgets.parse_limit("100k")})
    return root / "profiles" / "hx" / "state.db"


@pytest.mark.parametrize("shape", ["0.17", "0.18", "0.19"])
def test_hermes_tokens_are_read_from_each_releases_store_and_never_go_down(
        room: Room, hermes_session: Path, shape: str) -> None:
    store = hermes_store(hermes_session, shape)
    worktree = Path(sessions.require(room.conn, "hx").worktree or "")
    hermes_turn(store, shape, "s1", worktree, (150_000, 10, 300, 0))
    hermes_turn(store, shape, "s2", worktree / "sub", (5, 5, 0, 0))
    hermes_turn(store, shape, "s3", worktree.parent / "elsewhere", (7, 7, 0, 0))
    keeper = Spending(room.conn, room.home)
    keeper.follow([sessions.require(room.conn, "hx")], now=1_000.0)
    spent = spend.of_session(room.conn, "hx")
    assert spent.source == "hermes state.db" and spent.unreadable is None
    assert spent.tokens == spend.Usage(150_005, 15, 300, 0)
    assert held(room, "hx")

    hermes_turn(store, shape, "s1", worktree, (1, 1, 0, 0))  # rewritten smaller
    store.execute("DELETE FROM sessions WHERE id = 's2'")
    if shape == "0.19":
        store.execute("DELETE FROM session_model_usage WHERE session_id = 's2'")
    store.commit()
    keeper.follow([sessions.require(room.conn, "hx")], now=2_000.0)
    assert spend.of_session(room.conn, "hx").tokens == spend.Usage(150_005, 15, 300, 0)
    assert held(room, "hx")
    assert alerts(room) == ["[change alert] hx's conversation s1 shrank; conversation s2"
                            " was deleted: its spend stays 150.3k tokens"]
    hermes_turn(store, shape, "s4", worktree, (10, 0, 0, 0))  # a new one counts on top
    keeper.follow([sessions.require(room.conn, "hx")], now=3_000.0)
    assert spend.of_session(room.conn, "hx").tokens.total == 150_330
    assert alerts(room) == []
    store.close()
    hermes_session.unlink()  # the whole store deleted
    keeper.follow([sessions.require(room.conn, "hx")], now=4_000.0)
    keeper.follow([sessions.require(room.conn, "hx")], now=5_000.0)
    assert spend.of_session(room.conn, "hx").tokens.total == 150_330
    assert held(room, "hx")
    assert alerts(room) == ["[change alert] hx's state.db was deleted: its spend stays"
                            " 150.3k tokens"]


def test_a_hermes_store_of_an_unknown_shape_is_unreadable_naming_the_version(
        room: Room, hermes_session: Path) -> None:
    hermes_store(hermes_session, "unknown").close()
    sessions.update(room.conn, "hx", agent_version="0.16.0")
    keeper = Spending(room.conn, room.home)
    keeper.follow([sessions.require(room.conn, "hx")], now=1_000.0)
    spent = spend.of_session(room.conn, "hx")
    assert not spent.known
    assert spent.unreadable == ("hermes 0.16.0's state.db: no token columns bullpen"
                                " knows (tables: sessions)")
    assert spend.short(spent) == "unreadable"
    assert budgets.unenforceable(room.conn, {"hx": spent}) == {
        "hx": "cannot enforce this session's 100.0k tokens budget: its spend is"
              " unreadable (hermes 0.16.0's state.db: no token columns bullpen knows"
              " (tables: sessions))"}


def test_a_release_that_cannot_hold_the_deny_list_says_so_in_ls_doctor_and_spend(
        room: Room, hermes_session: Path) -> None:
    """hermes 0.16.0 (no approvals.deny, no blocking hooks) with a store bullpen cannot
    read: `ls` says `deny not enforced`, doctor is not ok, `spend` says unreadable and
    that the budget cannot be enforced — never a silent unknown."""
    from tests.cli_runner import run_cli

    hermes_store(hermes_session, "unknown").close()
    sessions.update(room.conn, "hx", agent_version="0.16.0", desired="running")
    Spending(room.conn, room.home).follow([sessions.require(room.conn, "hx")], now=1_000.0)
    repo = room.home.parent
    listed = run_cli("ls", cwd=repo)
    assert listed.returncode == 0, listed.stderr
    line = next(text for text in listed.stdout.splitlines() if text.startswith("hx "))
    assert "deny not enforced" in line, listed.stdout
    assert json.loads(run_cli("ls", "--json", cwd=repo).stdout)[0]["levers"] == [
        "deny not enforced"]
    doctor = json.loads(run_cli("doctor", "--json", cwd=repo).stdout)
    assert [f["ok"] for f in doctor if "deny not enforced" in f["what"]] == [False]
    shown = run_cli("spend", cwd=repo).stdout
    assert "hx: spend unreadable: hermes 0.16.0's state.db" in shown, shown
    assert "keeps no record" not in shown.split("prices as of")[0]
    row = json.loads(run_cli("spend", "--json", cwd=repo).stdout)["sessions"][0]
    assert row["unreadable"].startswith("hermes 0.16.0's state.db")
    assert row["budget_unenforceable"].startswith("cannot enforce")
    from tui.dashboard.feed import session_rows
    from tui.dashboard.needs import NeedKind, needs_you

    needs = needs_you(session_rows(room.conn), [], [], [])
    assert [(n.kind, n.text.split(":")[1].strip()) for n in needs[:2]] == [
        (NeedKind.LEVER, "deny not enforced"), (NeedKind.LEVER, "cannot enforce this"
                                                " session's 100.0k tokens budget")]
