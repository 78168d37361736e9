"""`note show ID --json`, `note send --wait SECONDS` and `note inbox --all`: delivery
states as a user sees them, through the real command."""

from __future__ import annotations

import json
import threading

from board import notes, sessions
from board.room import Room
from tests.cli_runner import identity, run_cli


def test_show_prints_each_recipients_delivery_state(room: Room) -> None:
    sessions.register(room.conn, "bob")
    note = notes.send(room.conn, "operator", "bob", "hello")
    shown = run_cli("note", "show", str(note.id), "--json", cwd=room.home.parent)
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert (data["id"], data["sender"], data["body"]) == (note.id, "operator", "hello")
    assert data["deliveries"] == [{"recipient": "bob", "state": "queued", "held_reason": None,
                                   "via": None, "delivered_at": None, "read_at": None,
                                   "possible_repeat": False}]
    missing = run_cli("note", "show", "9999", cwd=room.home.parent)
    assert missing.returncode == 2 and "9999" in missing.stderr and not missing.stdout.strip()


def test_send_wait_exits_1_with_the_state_when_time_is_up(room: Room) -> None:
    sessions.register(room.conn, "bob")
    done = run_cli("note", "send", "bob", "anyone?", "--wait", "0.3", cwd=room.home.parent)
    assert done.returncode == 1
    assert done.stderr.strip().startswith("note ") and "bob queued" in done.stderr


def test_send_wait_exits_0_once_the_note_is_given(room: Room) -> None:
    token = sessions.register(room.conn, "bob")
    bob = identity(room.home, "bob", token)

    def bob_reads_when_it_arrives() -> None:
        run_cli("note", "inbox", "--wait", "20", cwd=room.home.parent, env=bob)

    reader = threading.Thread(target=bob_reads_when_it_arrives)
    reader.start()
    done = run_cli("note", "send", "bob", "read me", "--wait", "20", cwd=room.home.parent)
    reader.join(30)
    assert done.returncode == 0, done.stderr


def test_inbox_all_shows_what_was_handed_with_its_state(room: Room) -> None:
    token = sessions.register(room.conn, "bob")
    handed = notes.send(room.conn, "operator", "bob", "via the hook")
    notes.take_pending(room.conn, "bob")
    waiting = notes.send(room.conn, "operator", "bob", "still waiting")
    env = identity(room.home, "bob", token)
    everything = json.loads(run_cli("note", "inbox", "--all", "--json", cwd=room.home.parent,
                                    env=env).stdout)
    assert [(n["id"], n["delivery"]["state"]) for n in everything] == [
        (handed.id, "handed"), (waiting.id, "queued")]
    again = json.loads(run_cli("note", "inbox", "--json", cwd=room.home.parent, env=env).stdout)
    assert again == []  # both given now: one handed, one read by the --all above
