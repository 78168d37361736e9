"""Notes on a real SQLite file: concurrency, replies, inbox, durability."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from board import chains, notes, sessions
from board.db import connect, is_postgres
from board.identity import Caller
from board.room import Room, open_room
from tests.cli_runner import BULLPEN, identity, run_cli

pytestmark = pytest.mark.both_stores

SENDER_SCRIPT = """
import sys
from board.db import connect
from board import notes
conn = connect(sys.argv[1])
for i in range(int(sys.argv[3])):
    notes.send(conn, sys.argv[2], "inbox", f"{sys.argv[2]} note {i}")
"""


def test_ten_processes_sending_at_once_store_every_note_once(room: Room) -> None:
    names = [f"s{i}" for i in range(10)]
    for name in [*names, "inbox"]:
        sessions.register(room.conn, name)
    # 100 notes a sender in seconds: the store under load, not the loop guard's rate limit.
    chains.set_limits(room.conn, chains.Limits(notes=None, rate=None))
    senders = [subprocess.Popen([sys.executable, "-c", SENDER_SCRIPT, str(room.db_path), n,
                                 "100"], stderr=subprocess.PIPE, text=True) for n in names]
    errors = [(sender.wait(timeout=120), sender.stderr.read()) for sender in senders]
    assert errors == [(0, "")] * 10  # nobody refused with "database is locked"
    received = notes.inbox(room.conn, Caller("inbox"))
    bodies = [note.body for note in received]
    assert len(bodies) == 1000 and len(set(bodies)) == 1000
    assert len({note.id for note in received}) == 1000


def test_reply_quotes_a_stable_id_and_inbox_marks_read(room: Room) -> None:
    envs = {n: identity(room.home, n, sessions.register(room.conn, n)) for n in ("a", "b")}
    sent = run_cli("note", "send", "b", "schema", "is", "ready", "--json",
                   cwd=room.home.parent, env=envs["a"])
    note_id = json.loads(sent.stdout)["id"]
    inbox = run_cli("note", "inbox", "--json", cwd=room.home.parent, env=envs["b"])
    [note] = json.loads(inbox.stdout)
    assert note == {**note, "id": note_id, "sender": "a", "recipient": "b",
                    "body": "schema is ready", "reply_to": None}
    assert json.loads(run_cli("note", "inbox", "--json", cwd=room.home.parent,
                              env=envs["b"]).stdout) == []
    reply = run_cli("note", "send", "a", "thanks", "--reply-to", str(note_id), "--json",
                    cwd=room.home.parent, env=envs["b"])
    assert json.loads(reply.stdout)["reply_to"] == note_id
    [answer] = json.loads(run_cli("note", "inbox", "--json", cwd=room.home.parent,
                                  env=envs["a"]).stdout)
    assert answer["reply_to"] == note_id and answer["sender"] == "b"


def test_broadcast_reaches_everyone_but_the_sender(room: Room) -> None:
    for name in ("a", "b", "c"):
        sessions.register(room.conn, name)
    notes.send(room.conn, Caller("a"), "all", "standup in 5")
    assert [n.body for n in notes.inbox(room.conn, Caller("b"))] == ["standup in 5"]
    assert [n.body for n in notes.inbox(room.conn, Caller("c"))] == ["standup in 5"]
    assert notes.inbox(room.conn, Caller("a")) == []


def test_identical_repeat_is_not_queued_twice(room: Room) -> None:
    sessions.register(room.conn, "b")
    first = notes.send(room.conn, Caller("operator"), "b", "rebase please")
    again = notes.send(room.conn, Caller("operator"), "b", "rebase please")
    assert again.id == first.id and len(notes.pending(room.conn, "b")) == 1


def test_inbox_wait_returns_when_a_note_arrives(room: Room) -> None:
    env = identity(room.home, "b", sessions.register(room.conn, "b"))
    waiter = subprocess.Popen([BULLPEN, "note", "inbox", "--json", "--wait", "30"],
                              cwd=room.home.parent, env={**os.environ, **env},
                              stdout=subprocess.PIPE, text=True)
    threading.Timer(0.3, lambda: notes.send(connect(room.db_path), "operator", "b",
                                            "wake up")).start()
    out, _ = waiter.communicate(timeout=20)
    assert [n["body"] for n in json.loads(out)] == ["wake up"]


def test_inbox_wait_times_out_empty(room: Room) -> None:
    env = identity(room.home, "b", sessions.register(room.conn, "b"))
    result = run_cli("note", "inbox", "--wait", "0.2", cwd=room.home.parent, env=env)
    assert result.returncode == 0 and "no new notes" in result.stdout


KILLED_WRITER = """
import os, sys
from board.db import connect
from board import notes
conn = connect(sys.argv[1])
for i in range(100000):
    notes.send(conn, "operator", "b", f"note {i}")
    print(i, flush=True)  # after the commit: every printed number is a committed note
"""


def test_kill_nine_mid_write_loses_nothing_committed(room: Room, store_backend: str) -> None:
    sessions.register(room.conn, "b")
    writer = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(room.db_path)],
                              stdout=subprocess.PIPE, text=True)
    while int(writer.stdout.readline()) < 50:
        pass
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=10)
    committed = [int(line) for line in writer.stdout.read().split()]  # printed before the kill
    reopened = open_room(env={"BULLPEN_HOME": str(room.home)})
    bodies = [n.body for n in notes.pending(reopened.conn, "b")]
    count = len(bodies)
    assert count > 50 and bodies == [f"note {i}" for i in range(count)]
    assert count > max(committed, default=50)  # nothing the writer saw committed is lost
    # No torn write: every stored note has its delivery row (one transaction each).
    stored = reopened.conn.execute("SELECT count(*) FROM notes").fetchone()[0]
    assert stored == count
    if store_backend == "sqlite":
        assert reopened.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    reopened.close()


def test_room_found_from_a_linked_worktree(room: Room, git_repo: Path) -> None:
    linked = git_repo / ".bullpen" / "worktrees" / "x"
    subprocess.run(["git", "worktree", "add", "-q", "-b", "bullpen/x", str(linked)],
                   cwd=git_repo, check=True)
    from_worktree = open_room(env={}, start=linked / "src")
    assert from_worktree.db_path == room.db_path
    from_worktree.close()


def test_note_send_loads_none_of_the_modules_it_does_not_need(room: Room,
                                                               git_repo: Path) -> None:
    """`bullpen note send` runs on every agent turn: OpenSSL (hashlib), shutil, typing,
    difflib, the store's waiter, argparse (a plain `note send TO TEXT` builds no parser),
    dataclasses (with inspect, ast, dis) and the delivery modules' readers stay out of
    its process. On PostgreSQL, what the driver (psycopg) imports itself is the
    driver's, not ours."""
    env = identity(room.home, "a", sessions.register(room.conn, "a"))
    sessions.register(room.conn, "b")
    unwanted = ("hashlib", "shutil", "typing", "difflib", "board.wakeup", "argparse",
                "gettext", "dataclasses", "inspect", "ast", "tui.cli.parser",
                "workers.agents.framing")
    if is_postgres(room.conn):
        drivers = subprocess.run(
            [sys.executable, "-c", f"import sys, psycopg; print(*(name for name in"
             f" {unwanted!r} if name in sys.modules))"], text=True, capture_output=True,
            check=True).stdout.split()
        unwanted = tuple(name for name in unwanted if name not in drivers)
    probe = ("import sys; from tui.cli import main; main(['note', 'send', 'b', 'hi']);"
             f" print(*(name for name in {unwanted!r} if name in sys.modules), file=sys.stderr)")
    result = subprocess.run([sys.executable, "-c", probe], text=True, capture_output=True,
                            env={**env, "PATH": "/usr/bin:/bin"}, cwd=git_repo, timeout=60)
    assert result.stdout.startswith("note ") and result.stderr.split() == []


def test_inbox_prints_whole_bodies_wrapped_to_the_terminal(room: Room) -> None:
    env = identity(room.home, "b", sessions.register(room.conn, "b"))
    sessions.register(room.conn, "a")
    body = " ".join(f"word{i}" for i in range(300)) + "\nsecond paragraph stays apart"
    notes.send(room.conn, Caller("a"), "b", body)
    result = run_cli("note", "inbox", cwd=room.home.parent, env={**env, "COLUMNS": "60"})
    lines = result.stdout.splitlines()
    assert lines[0].startswith("#") and "from a" in lines[0]
    assert all(len(line) <= 60 and line.startswith("    ") for line in lines[1:])
    assert " ".join(" ".join(lines[1:]).split()) == " ".join(body.split())
    assert lines[-1] == "    second paragraph stays apart" and "…" not in result.stdout
