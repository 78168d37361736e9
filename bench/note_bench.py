"""Notes: CLI cost against the interpreter, and send -> inbox latency with 10 senders."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from bench.common import (
    describe,
    median,
    percentile,
    quick,
    ratio_spread,
    scratch_repo,
    time_command,
)
from bench.figures import record
from board import chains, notes, sessions
from board.db import connect
from board.identity import Caller
from board.room import open_room

SENDERS = quick(10, 3)
NOTES_PER_SENDER = quick(30, 5)

# One sender process: sends notes carrying nothing but their own index.
SENDER = """
import sys
from board.db import connect
from board import notes
conn = connect(sys.argv[1])
sys.stdin.readline()  # start together
for i in range(int(sys.argv[3])):
    notes.send(conn, sys.argv[2], "inbox", f"{sys.argv[2]}-{i}")
"""

# The same load with the bare primitive: an INSERT and COMMIT into a WAL table.
RAW_SENDER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
conn.execute("PRAGMA journal_mode=WAL"); conn.execute("PRAGMA synchronous=NORMAL")
sys.stdin.readline()
for i in range(int(sys.argv[3])):
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO raw (body, created_at) VALUES (?, ?)", (f"x{i}", time.time()))
    conn.execute("COMMIT")
"""


# The bench times the store and the CLI; each sender sends far past the loop guard's rate.
UNGUARDED = chains.Limits(notes=None, rate=None)


def cli_cost(repo: Path) -> None:
    room = open_room(env={}, start=repo)
    chains.set_limits(room.conn, UNGUARDED)
    token = sessions.register(room.conn, "sender")
    sessions.register(room.conn, "receiver")
    room.close()
    env = {**os.environ, "BULLPEN_SESSION": "sender", "BULLPEN_TOKEN": token}
    bullpen = str(Path(sys.executable).parent / "bullpen")
    runs = quick(20, 5)
    time_command([sys.executable, "-c", "import sqlite3"], 3)  # warm the page cache
    time_command([bullpen, "note", "send", "receiver", "warm"], 3, env=env, cwd=repo)
    bare: list[float] = []
    sends: list[float] = []
    for _ in range(runs):  # interleaved: a shared machine's load changes both alike
        bare += time_command([sys.executable, "-c", "import sqlite3"], 1)
        sends += time_command([bullpen, "note", "send", "receiver", "hello"], 1, env=env,
                              cwd=repo)
    baseline, send = median(bare), median(sends)
    print(f"CLI note send, whole process: {send * 1000:.1f} ms vs python -c 'import sqlite3'"
          f" {baseline * 1000:.1f} ms -> {ratio_spread(sends, bare)} (target <= 2x)")
    record("bullpen note send, whole process", f"{send * 1000:.1f} ms",
           f"python -c 'import sqlite3' {baseline * 1000:.1f} ms", send / baseline, "<= 2x",
           send / baseline <= 2.0)


def _run_senders(script: str, db: Path, names: list[str]) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", script, str(db), name,
                               str(NOTES_PER_SENDER)], stdin=subprocess.PIPE, text=True)
             for name in names]
    for proc in procs:  # release them together
        proc.stdin.write("go\n")
        proc.stdin.flush()
    return procs


def inbox_latency(repo: Path) -> list[float]:
    room = open_room(env={}, start=repo)
    chains.set_limits(room.conn, UNGUARDED)
    names = [f"s{i}" for i in range(SENDERS)]
    for name in [*names, "inbox"]:
        sessions.register(room.conn, name)
    reader = Caller("inbox")
    seen: list[float] = []
    procs = _run_senders(SENDER, room.db_path, names)
    total = SENDERS * NOTES_PER_SENDER
    while len(seen) < total:
        arrived = notes.inbox(room.conn, reader)
        now = time.time()
        seen.extend(now - note.created_at for note in arrived)
    for proc in procs:
        proc.wait()
    room.close()
    return seen


def raw_latency(repo: Path) -> list[float]:
    db = repo / "raw.db"
    conn = connect(db)  # any WAL database will do; add the raw table beside bullpen's
    conn.execute("CREATE TABLE raw (id INTEGER PRIMARY KEY, body TEXT, created_at REAL)")
    procs = _run_senders(RAW_SENDER, db, [f"r{i}" for i in range(SENDERS)])
    seen: list[float] = []
    last = 0
    while len(seen) < SENDERS * NOTES_PER_SENDER:
        rows = conn.execute("SELECT id, created_at FROM raw WHERE id > ? ORDER BY id",
                            (last,)).fetchall()
        now = time.time()
        for row_id, created in rows:
            seen.append(now - created)
            last = row_id
    for proc in procs:
        proc.wait()
    return seen


def main() -> None:
    repo = scratch_repo()
    cli_cost(repo)
    latency = inbox_latency(scratch_repo())
    raw = raw_latency(scratch_repo())
    print(f"send -> in recipient's inbox, {SENDERS} senders at once: {describe(latency)}"
          " (target p99 <= 50 ms)")
    print(f"bare SQLite commit -> visible to a polling reader, same load: {describe(raw)}")
    print(f"ratio p99: {percentile(latency, 0.99) / max(percentile(raw, 0.99), 1e-6):.1f}x"
          " the bare primitive")
    record(f"note send -> inbox, {SENDERS} senders, p99",
           f"{percentile(latency, 0.99) * 1000:.1f} ms",
           f"bare SQLite commit -> seen p99 {percentile(raw, 0.99) * 1000:.1f} ms",
           percentile(latency, 0.99) / max(percentile(raw, 0.99), 1e-6), "p99 <= 50 ms",
           percentile(latency, 0.99) <= 0.05)
