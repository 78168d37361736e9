"""A private notebook entry reaches its author only, on every path a session can use."""

from __future__ import annotations

import json

import pytest

from board import notebook, sessions
from board.identity import Caller
from board.room import Room
from tests.cli_runner import identity, run_cli

pytestmark = pytest.mark.both_stores


@pytest.fixture
def two_sessions(room: Room) -> dict[str, dict[str, str]]:
    envs = {name: identity(room.home, name, sessions.register(room.conn, name))
            for name in ("alice", "bob")}
    notebook.write_entry(room.conn, Caller("alice"), "shared finding: usage peaks at noon",
                         tag="usage")
    notebook.write_entry(room.conn, Caller("alice"), "private hunch: noon peak is a bot",
                         private=True, tag="usage")
    return envs


def test_library_paths_hide_private_entries_from_others(room: Room, two_sessions) -> None:
    bob, alice = Caller("bob"), Caller("alice")
    assert [e.body for e in notebook.read(room.conn, bob, "alice")] == [
        "shared finding: usage peaks at noon"]
    assert all(not e.private for e in notebook.read(room.conn, bob))
    assert [e.private for e in notebook.search(room.conn, bob, "noon")] == [False]
    assert len(notebook.search(room.conn, alice, "noon")) == 2
    assert len(notebook.read(room.conn, alice, "alice")) == 2
    # The operator's session-facing view is no wider than a session's.
    assert len(notebook.read(room.conn, Caller("operator"), "alice")) == 1
    assert [e.private for e in notebook.operator_view(room.conn)] == [False, True]


@pytest.mark.parametrize("command", [
    ["notebook", "read", "alice", "--json"],
    ["notebook", "read", "--json"],
    ["notebook", "search", "noon", "--json"],
    ["notebook", "search", "bot", "--json"],
])
def test_cli_paths_hide_private_entries(room: Room, two_sessions, command) -> None:
    as_bob = run_cli(*command, cwd=room.home.parent, env=two_sessions["bob"])
    assert as_bob.returncode == 0, as_bob.stderr
    assert "bot" not in as_bob.stdout
    assert all(not entry["private"] for entry in json.loads(as_bob.stdout))
    plain = run_cli(*command[:-1], cwd=room.home.parent, env=two_sessions["bob"])
    assert "bot" not in plain.stdout and "private" not in plain.stdout
    as_alice = run_cli(*command, cwd=room.home.parent, env=two_sessions["alice"])
    if "bot" in command or command[1] == "read":
        assert any(entry["private"] for entry in json.loads(as_alice.stdout))


def test_private_entries_never_leak_through_events(room: Room, two_sessions) -> None:
    rows = room.conn.execute("SELECT data FROM events WHERE kind = 'notebook_written'")
    assert all("bot" not in (data or "") for (data,) in rows)


def test_notes_are_seen_by_sender_and_recipients_only(room: Room, two_sessions) -> None:
    sessions.register(room.conn, "carol")
    from board import notes
    sent = notes.send(room.conn, Caller("alice"), "bob", "for bob only")
    assert notes.visible(room.conn, "carol", sent.id) is None
    assert notes.visible(room.conn, "bob", sent.id) == sent
    assert notes.inbox(room.conn, Caller("carol")) == []
