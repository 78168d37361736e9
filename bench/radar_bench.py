"""The conflict radar: its cost per recorded change, and change -> both sides told.

A repository of 10,000 files and 10 sessions, each with its own worktree.

1. Cost. Nine sessions committed an edit to their own lines of one shared file, so each
   pair of them overlaps (a change affects 8 pairs) but merges cleanly; the tenth only
   touches a file of its own. Each round, one of the nine rewrites its lines uncommitted
   and the radar scans that one change as the coordinator hands it over (the session and
   the path its change event names): snapshot through the radar's own index file, fork
   point, changed paths, the affected pairs' merges (predicted together in one
   `git merge-tree --stdin`), the board. The raw
   primitive is one `git merge-tree --write-tree` of two sessions' commits, as a process,
   in the same run: the ratio is the scan's time per affected pair over it (target <=
   1.5x). The tenth session's edits show the flat part: no pair predicted.
2. Latency. A real room (`up --detach`: tmux, the coordinator, its watcher and radar):
   session s1 writes the lines s0 committed; timed from that write to both `conflict`
   notes stored, then from s1 moving its edit elsewhere to both "cleared" notes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench.common import describe, percentile, quick, scratch_repo
from bench.figures import record
from board import sessions
from board.db import connect
from board.room import open_room
from tests.agents.scripted_agent import command_line
from workers.coordinator.radar import Radar
from workers.tmux.server import RoomServer, socket_name_for
from worktrees import create_worktree

FILES = quick(10_000, 500)
SESSIONS = quick(10, 3)
ROUNDS = quick(45, 5)
LATENCY_ROUNDS = quick(50, 3)  # a p99 from fewer samples is only the worst one seen
TARGET_RATIO = 1.5
TARGET_LATENCY = 1.0
WAIT = 30.0
RESCAN = 2.0  # seconds: two of the radar's quiet rounds
SHARED = "shared/config.txt"
LONER = f"pkg{(FILES - 1) // 100:03d}/mod{(FILES - 1) % 100:03d}.py"  # the last file made
LINES = 200
ENV = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@b",
       "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@b"}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, env=ENV, capture_output=True,
                          text=True).stdout


def big_repo() -> Path:
    repo = scratch_repo()
    for index in range(FILES):
        folder = repo / f"pkg{index // 100:03d}"
        folder.mkdir(exist_ok=True)
        (folder / f"mod{index % 100:03d}.py").write_text(f"VALUE = {index}\n")
    (repo / "shared").mkdir()
    (repo / SHARED).write_text("".join(f"line {n}\n" for n in range(LINES)))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "10,000 files")
    return repo


def own_lines(text: str, session: int, word: str) -> str:
    """The shared file with session `session`'s own line (far from the others') rewritten."""
    lines = text.splitlines(keepends=True)
    lines[session * (LINES // SESSIONS)] = f"{word} by s{session}\n"
    return "".join(lines)


def cost(repo: Path) -> tuple[list[float], list[float], list[float], int]:
    """(seconds per affected pair, seconds of a change nobody overlaps, raw merge-tree)."""
    room = open_room(env={}, start=repo)
    paths = {}
    for index in range(SESSIONS):
        name = f"s{index}"
        info = create_worktree(repo, name)
        sessions.register(room.conn, name, branch=info.branch, worktree=str(info.path))
        sessions.update(room.conn, name, desired="running")
        if index == SESSIONS - 1:  # the loner: a file of its own
            (info.path / LONER).write_text("LONER = 1\n")
        else:
            shared = info.path / SHARED
            shared.write_text(own_lines(shared.read_text(), index, "committed"))
        git(info.path, "commit", "-qam", f"s{index}'s lines")
        paths[name] = info.path
    radar = Radar(repo, lambda: connect(room.home / "bullpen.db"))
    radar.scan(room.conn, set(paths))
    per_pair, alone = [], []
    loner = f"s{SESSIONS - 1}"
    for round_ in range(ROUNDS):
        index = round_ % (SESSIONS - 1)
        shared = paths[f"s{index}"] / SHARED
        shared.write_text(own_lines(shared.read_text(), index, f"round {round_}"))
        before = radar.predicted
        started = time.perf_counter()
        radar.scan(room.conn, {f"s{index}": {SHARED}})
        spent = time.perf_counter() - started
        pairs = radar.predicted - before
        per_pair.append(spent / max(pairs, 1))
        (paths[loner] / LONER).write_text(f"LONER = {round_}\n")
        before = radar.predicted
        started = time.perf_counter()
        radar.scan(room.conn, {loner: {LONER}})
        alone.append(time.perf_counter() - started)
        assert radar.predicted == before
    tips = [git(paths[n], "rev-parse", "HEAD").strip() for n in ("s0", "s1")]
    raw = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        subprocess.run(["git", "merge-tree", "--write-tree", *tips], cwd=repo, check=True,
                       capture_output=True)
        raw.append(time.perf_counter() - started)
    overlapping = radar.predicted
    room.close()
    return per_pair, alone, raw, overlapping


def latency(repo: Path) -> tuple[list[float], list[float]]:
    """Seconds from the write to both notes stored: found, and cleared."""
    log = repo.parent / "logs"
    log.mkdir()
    plan = {"sessions": {f"s{i}": {"agent": command_line(log / f"s{i}.jsonl"),
                                   "deliver": "inbox"} for i in range(SESSIONS)}}
    (repo / "bullpen.yaml").write_text(json.dumps(plan))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("BULLPEN_") and k not in ("TMUX", "TMUX_PANE")}
    bullpen = str(Path(sys.executable).parent / "bullpen")
    subprocess.run([bullpen, "up", "--detach", "--no-dashboard"], cwd=repo, env=env,
                   check=True, capture_output=True)
    conn = connect(repo / ".bullpen" / "bullpen.db")
    worktrees = {row["name"]: Path(row["worktree"]) for row in
                 conn.execute("SELECT name, worktree FROM sessions")}
    try:
        shared0 = worktrees["s0"] / SHARED
        shared0.write_text(own_lines(shared0.read_text(), 0, "committed"))
        git(worktrees["s0"], "commit", "-qam", "s0's lines")
        # The rounds start once the watcher sees both worktrees: s0's commit and an edit
        # of s1's are recorded. An edit made before a watch begins is caught up only by
        # the next coordinator, so each side is touched again until one is recorded.
        _recorded(conn, "s0", lambda n: git(worktrees["s0"], "commit", "-q",
                                            "--allow-empty", "-m", f"s0 again {n}"))
        _recorded(conn, "s1", lambda n: (worktrees["s1"] / "warm-up.txt").write_text(
            f"watched? {n}\n"))
        time.sleep(RESCAN)  # and the radar has had its look at them
        found, cleared = [], []
        target = worktrees["s1"] / SHARED
        original = target.read_text()
        for round_ in range(LATENCY_ROUNDS):
            started = time.time()
            target.write_text(own_lines(original, 0, f"s1 round {round_}"))  # s0's line
            found.append(_both_told(conn, started, "Conflict ahead") - started)
            started = time.time()
            target.write_text(own_lines(original, 1, f"s1 round {round_}"))  # its own line
            cleared.append(_both_told(conn, started, "Conflict cleared") - started)
    finally:
        conn.close()
        subprocess.run([bullpen, "down"], cwd=repo, env=env, capture_output=True)
        RoomServer(socket_name_for(repo)).kill_server()
    return found, cleared


def _recorded(conn, session: str, touch) -> None:  # noqa: ANN001
    """Wait until a change of `session` is recorded, touching its worktree again every
    few seconds (`touch(n)`) in case the first one came before its watch began."""
    started = time.monotonic()
    deadline = started + WAIT * 4  # 10 worktrees of 10,000 files to watch first
    touches = 0
    while not conn.execute("SELECT 1 FROM changes WHERE changed_by = ?", (session,)).fetchone():
        if time.monotonic() > deadline:
            raise SystemExit(f"radar bench: no change of {session} was ever recorded")
        if time.monotonic() - started > 5.0 * (touches + 1):
            touches += 1
            touch(touches)
        time.sleep(0.05)


def _both_told(conn, since: float, words: str) -> float:  # noqa: ANN001
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        rows = conn.execute("SELECT recipient, max(created_at) FROM notes WHERE kind ="
                            " 'conflict' AND created_at >= ? AND body LIKE ? GROUP BY"
                            " recipient", (since, f"{words}%")).fetchall()
        if {row[0] for row in rows} >= {"s0", "s1"}:
            return max(row[1] for row in rows)
        time.sleep(0.005)
    raise SystemExit(f"radar bench: {words!r} never reached both s0 and s1")


def verdict(ok: bool) -> str:
    return "meets" if ok else "MISSES"


def main() -> None:
    repo = big_repo()
    try:
        per_pair, alone, raw, predicted = cost(repo)
    finally:
        shutil.rmtree(repo.parent, ignore_errors=True)
    print(f"{SESSIONS} sessions, {FILES:,} files; each change overlaps {SESSIONS - 2} pairs"
          f" ({predicted} merges predicted in all)")
    print(f"raw git merge-tree --write-tree, same run: {describe(raw)}")
    ratio = percentile(per_pair, 0.5) / percentile(raw, 0.5)
    print(f"radar per change, per affected pair: {describe(per_pair)} = {ratio:.2f}x one"
          f" merge-tree (target <= {TARGET_RATIO}x: {verdict(ratio <= TARGET_RATIO)})")
    record("radar per change, per affected pair", f"{percentile(per_pair, 0.5) * 1000:.1f} ms",
           f"git merge-tree {percentile(raw, 0.5) * 1000:.1f} ms", ratio,
           f"<= {TARGET_RATIO}x", ratio <= TARGET_RATIO)
    print(f"a change nobody else overlaps (no pair predicted): {describe(alone)},"
          f" {percentile(alone, 0.5) / percentile(raw, 0.5):.2f}x one merge-tree (flat: no"
          " target)")
    repo = big_repo()
    try:
        found, cleared = latency(repo)
    finally:
        shutil.rmtree(repo.parent, ignore_errors=True)
    for words, values in (("conflict", found), ("'cleared'", cleared)):
        p99 = percentile(values, 0.99)
        print(f"write -> both sides' {words} notes stored: {describe(values)} (target p99 <="
              f" {TARGET_LATENCY * 1000:.0f} ms, watcher debounce 200 ms included:"
              f" {verdict(p99 <= TARGET_LATENCY)})")
        record(f"write -> both sides' {words} notes, p99", f"{p99 * 1000:.0f} ms", "", None,
               f"p99 <= {TARGET_LATENCY * 1000:.0f} ms", p99 <= TARGET_LATENCY)


if __name__ == "__main__":
    main()
