"""After a resume, the notes a hook handed that the agent's own store does not keep are
handed again, marked; where the store keeps them, nothing is repeated. The store is a
real SQLite file of the shape Hermes' state.db has (sessions, messages), written as
0.18.2 writes it (only the typed lines) and as 0.19.0 does (the hook's context too)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from board import deliveries, notes, sessions
from board.identity import Caller
from board.models import OPERATOR
from board.room import Room
from board.vocabulary import SYSTEM_SENDER, DeliveryChannel
from workers.agents import framing
from workers.room.resume_notes import AGAIN, hand_again

pytestmark = pytest.mark.both_stores
CONVERSATION = "20261204_120000_abcd"


def state_db(profile: Path, began: float, user_lines: list[str],
             sent: list[str] | None = None) -> None:
    """A Hermes state.db holding one conversation and its user messages: as 0.17 and
    0.18 write it (the typed lines only), or, given `sent`, as 0.19 does (beside each
    clean line, `api_content`: what was sent, a hook's context included)."""
    profile.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(profile / "state.db")
    extra = ", api_content TEXT" if sent is not None else ""
    conn.executescript("CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, cwd TEXT,"
                       " started_at REAL);"
                       "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT,"
                       f" session_id TEXT, role TEXT, content TEXT, timestamp REAL{extra});")
    conn.execute("INSERT INTO sessions VALUES (?, 'cli', '/w', ?)", (CONVERSATION, began))
    conn.executemany("INSERT INTO messages (session_id, role, content, timestamp)"
                     " VALUES (?, 'user', ?, ?)", [(CONVERSATION, line, began + 1)
                                                   for line in user_lines])
    if sent is not None:
        conn.executemany("UPDATE messages SET api_content = ? WHERE content = ?",
                         list(zip(sent, user_lines, strict=True)))
    conn.commit()
    conn.close()


@pytest.fixture
def coder(room: Room, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Hermes session `coder` on profile `coder` under a HERMES_HOME of its own, with a
    handoff and a note handed to it by its hook; returns the profile directory."""
    monkeypatch.setenv("HERMES_HOME", str(tmp_path / "hermes"))
    sessions.register(room.conn, "coder", agent="hermes", profile="coder")
    sessions.register(room.conn, "research", agent="hermes", profile="research")
    notes.send(room.conn, SYSTEM_SENDER, "coder", "Your turn: SUMMARY-R", kind="handoff")
    notes.send(room.conn, Caller("research"), "coder", "NOTE-R cache")
    deliveries.hand(room.conn, "coder", via=DeliveryChannel.HOOK)
    return tmp_path / "hermes" / "profiles" / "coder"


def test_a_resume_that_lost_the_hooks_notes_hands_them_again_marked(
        room: Room, coder: Path) -> None:
    state_db(coder, time.time() - 60, ["start the job", "carry on"])  # 0.18.2: typed lines
    again = hand_again(room.conn, sessions.require(room.conn, "coder"), CONVERSATION)
    assert again is not None and again.sender == SYSTEM_SENDER
    assert again.body.startswith(f"({AGAIN})")
    assert "SUMMARY-R" in again.body and "NOTE-R cache" in again.body
    assert "from research" in again.body  # each note keeps its sender and id
    assert [n.id for n in deliveries.waiting(room.conn, "coder")] == [again.id]
    # Handed and lost again at the next restart: the notes once more, never this note
    deliveries.hand(room.conn, "coder", via=DeliveryChannel.HOOK)
    second = hand_again(room.conn, sessions.require(room.conn, "coder"), CONVERSATION)
    assert second is not None and second.body.count(f"({AGAIN})") == 1


def test_a_resume_whose_store_kept_them_repeats_nothing(room: Room, coder: Path) -> None:
    handed = deliveries.handed_by_hook(room.conn, "coder", 0)
    context = "\n".join(framing.hook_form(note) for note in handed)
    state_db(coder, time.time() - 60, ["carry on"], sent=[f"carry on\n\n{context}"])
    assert hand_again(room.conn, sessions.require(room.conn, "coder"), CONVERSATION) is None
    assert deliveries.waiting(room.conn, "coder") == []


def test_notes_handed_before_the_conversation_began_or_typed_are_not_its_to_keep(
        room: Room, coder: Path) -> None:
    state_db(coder, time.time() + 60, [])  # a conversation begun after both were handed
    assert hand_again(room.conn, sessions.require(room.conn, "coder"), CONVERSATION) is None
    notes.send(room.conn, Caller(OPERATOR), "coder", "TYPED-ONE")
    [waiting] = deliveries.waiting(room.conn, "coder")
    deliveries.claim(room.conn, "coder", [waiting.id], "%1:1")
    deliveries.confirm(room.conn, "coder", [waiting.id])  # typed into the pane: its own
    assert "TYPED-ONE" not in [n.body for n in deliveries.handed_by_hook(room.conn, "coder", 0)]


def test_a_store_that_cannot_be_read_or_no_conversation_repeats_nothing(
        room: Room, coder: Path) -> None:
    session = sessions.require(room.conn, "coder")
    assert hand_again(room.conn, session, CONVERSATION) is None  # no state.db at all
    coder.mkdir(parents=True)
    (coder / "state.db").write_bytes(b"not a database")
    assert hand_again(room.conn, session, CONVERSATION) is None
    assert hand_again(room.conn, session, None) is None
    sessions.register(room.conn, "cc", agent="claude")
    claude = sessions.require(room.conn, "cc")
    assert hand_again(room.conn, claude, CONVERSATION) is None  # its kind does not say
