"""The commands a person or an agent types, whole process, in a live room, against the
bare interpreter (`python -c 'import sqlite3'`, the venv's real one) timed interleaved.

The room: SESSIONS `exec cat` sessions up (`up --detach --no-dashboard`), a few tasks, a
note waiting in a reader's inbox. Each command runs RUNS times, each run beside one bare
interpreter (a shared machine's load changes both alike); the figure is the ratio of the
medians, target <= 2x (issue 34). `BULLPEN_BENCH_BULLPEN` names another `bullpen`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bench.common import median, quick, ratio_spread, scratch_repo, time_command
from bench.figures import record
from bench.rooms import room_down
from board import notes, sessions, tasks
from board.identity import OPERATOR, Caller
from board.room import open_room

SESSIONS = 3
RUNS = quick(21, 5)
TARGET = 2.0
COMMANDS: tuple[tuple[str, ...], ...] = (
    ("--version",), ("ls",), ("ls", "--json"), ("task", "ls"), ("note", "inbox", "--all"),
)


def _room(bullpen: str) -> tuple[Path, dict[str, str], dict[str, str]]:
    """A live room: (repo, the operator's environment, the reader session's)."""
    repo = scratch_repo()
    env = {**os.environ, "BULLPEN_HOME": str(repo / ".bullpen")}
    plan = "\n".join(f"  s{i}:\n    agent: exec cat" for i in range(SESSIONS))
    (repo / "bullpen.yaml").write_text(f"layout: windows\nsessions:\n{plan}\n")
    subprocess.run([bullpen, "up", "--detach", "--no-dashboard"], cwd=repo, env=env,
                   check=True, stdout=subprocess.DEVNULL)
    room = open_room(env=env, start=repo)
    token = sessions.register(room.conn, "reader")
    for index in range(10):
        tasks.add(room.conn, Caller(OPERATOR), f"task {index}")
    notes.send(room.conn, "s0", "reader", "hello")
    room.close()
    return repo, env, {**env, "BULLPEN_SESSION": "reader", "BULLPEN_TOKEN": token}


def main() -> None:
    bullpen = os.environ.get("BULLPEN_BENCH_BULLPEN") or str(Path(sys.executable).parent
                                                              / "bullpen")
    bare_argv = [sys.executable, "-c", "import sqlite3"]
    repo, env, reader = _room(bullpen)
    try:
        time_command(bare_argv, 3)  # warm the page cache
        for words in COMMANDS:
            argv = [bullpen, *words]
            used = reader if words[0] == "note" else env
            time_command(argv, 2, env=used, cwd=repo)
            bare: list[float] = []
            runs: list[float] = []
            for _ in range(RUNS):  # interleaved: a shared machine's load changes both alike
                bare += time_command(bare_argv, 1)
                runs += time_command(argv, 1, env=used, cwd=repo)
            ratio = median(runs) / median(bare)
            print(f"bullpen {' '.join(words)}: {median(runs) * 1000:.1f} ms vs"
                  f" {median(bare) * 1000:.1f} ms -> {ratio_spread(runs, bare)}"
                  f" (target <= {TARGET:g}x)", flush=True)
            record(f"bullpen {' '.join(words)}", f"{median(runs) * 1000:.1f} ms",
                   f"python -c 'import sqlite3' {median(bare) * 1000:.1f} ms", ratio,
                   f"<= {TARGET:g}x", ratio <= TARGET)
    finally:
        room_down(bullpen, repo, env)
