"""Soak: 10 scripted sessions under a steady load while the coordinator is killed every
few seconds and the tmux server twice. Not part of the test suite (it runs for minutes).

    python -m bench soak            # SOAK_SECONDS=120 by default

The load, compressed from a working half hour: notes from the operator to random
sessions, tasks added and finished, edits and commits in the sessions' worktrees (some
to a file every session read, so alerts follow). The chaos: SIGKILL to the coordinator
at random every 2-6 s, then started again as the dashboard's keeper does; the room's
tmux server killed twice, then `bullpen up`. At the end the room is left alone until
every note has reached its agent or the deadline passes.

Figures: notes sent / typed / still waiting / lost / duplicated, commits made / recorded
(each in exactly one change, alone or folded with the commits after it within the
debounce) / recorded twice, alerts recorded, coordinator restarts, errors and tracebacks
in the log.
Target: 0 lost, 0 duplicated, 0 tracebacks.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import yaml

from bench.common import quick, scratch_repo
from bench.figures import record
from board.db import connect
from tests.agents.scripted_agent import command_line
from workers.room.control import RoomControl
from workers.tmux.server import RoomServer, socket_name_for

SESSIONS = [f"s{number}" for number in range(10)]
SECONDS = float(os.environ.get("SOAK_SECONDS", quick(120, 10)))
SETTLE = quick(90.0, 30.0)  # seconds the quiet room gets to deliver what is left
TYPED = re.compile(r"\[note #(?P<id>\d+) from operator[^\]]*\] soak-(?P<n>\d+)")
BULLPEN = str(Path(sys.executable).parent / "bullpen")
GIT_ENV = {"GIT_AUTHOR_NAME": "soak", "GIT_AUTHOR_EMAIL": "s@s",
           "GIT_COMMITTER_NAME": "soak", "GIT_COMMITTER_EMAIL": "s@s"}


class Soak:
    def __init__(self) -> None:
        self.repo = scratch_repo()
        self.logs = self.repo.parent / "logs"
        self.logs.mkdir()
        self.home = self.repo / ".bullpen"
        self.server = RoomServer(socket_name_for(self.repo))
        self.cli_failures: list[str] = []
        self.cli_seconds: list[float] = []
        self.tracebacks = 0
        self.restarts = 0
        self.notes_sent: dict[int, str] = {}  # soak number -> recipient
        self.commits: list[tuple[str, str]] = []  # (session, sha), in the order made
        self.rng = random.Random(13)
        self.number = 0  # the last unit of load made
        self.cli_timeout = 120.0

    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        began = time.perf_counter()
        done = subprocess.run([BULLPEN, *args], cwd=self.repo, capture_output=True, text=True,
                              env={**os.environ, **GIT_ENV}, timeout=self.cli_timeout)
        self.cli_seconds.append(time.perf_counter() - began)
        if "Traceback" in done.stderr:
            self.tracebacks += 1
        if check and done.returncode != 0:
            self.cli_failures.append(f"{' '.join(args[:3])}: {done.stderr.strip()[:200]}")
        return done

    def plan(self) -> None:
        (self.repo / "src").mkdir()
        (self.repo / "src" / "app.py").write_text("v = 0\n")
        subprocess.run(["git", "add", "-A"], cwd=self.repo, check=True)
        subprocess.run(["git", "commit", "-qm", "app"], cwd=self.repo, check=True, env={
            **os.environ, **GIT_ENV})
        sessions = {}
        for name in SESSIONS:
            script = self.logs / f"{name}.script"
            script.write_text(json.dumps({"on": "<start>",
                                          "run": ["bullpen", "read", "src/app.py"]}) + "\n")
            sessions[name] = {"deliver": "type",  # a scripted agent: type into its prompt
                              "agent": command_line(self.logs / f"{name}.jsonl",
                                                    "--script", str(script))}
        (self.repo / "bullpen.yaml").write_text(yaml.safe_dump(
            {"layout": "windows", "sessions": sessions}, sort_keys=False))

    def up(self) -> None:
        self.cli("up", "--detach", "--no-dashboard")

    def kill_coordinator(self) -> None:
        try:
            pid = int((self.home / "coordinator.lock").read_text().split()[0])
            os.kill(pid, signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            return
        self.restarts += 1
        # As the dashboard's keeper does: start it again once its lock is free.
        keeper = RoomControl(self.home, server=self.server)
        deadline = time.monotonic() + 10
        while not keeper.keep_coordinator() and time.monotonic() < deadline:
            time.sleep(0.05)  # the killed process's lock is released by the kernel

    def step(self, number: int) -> None:
        """One unit of load: mostly notes, sometimes a task or a commit."""
        roll = self.rng.random()
        if roll < 0.7:
            to = self.rng.choice(SESSIONS)
            if self.cli("note", "send", to, f"soak-{number}").returncode == 0:
                self.notes_sent[number] = to
        elif roll < 0.85:
            made = self.cli("task", "add", f"chore {number}", "--json")
            if made.returncode == 0:
                self.cli("task", "move", str(json.loads(made.stdout)["id"]), "done")
        else:
            self.commit(self.rng.choice(SESSIONS), number)

    def commit(self, name: str, number: int) -> None:
        worktree = self.home / "worktrees" / name
        if not worktree.is_dir():
            return
        target = worktree / ("src/app.py" if number % 3 == 0 else f"notes-{name}.md")
        target.write_text(f"v = {number}\n")
        env = {**os.environ, **GIT_ENV}
        subprocess.run(["git", "add", "-A"], cwd=worktree, check=True, env=env)
        subprocess.run(["git", "commit", "-qm", f"soak {number}"], cwd=worktree, check=True,
                       env=env)
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=worktree, check=True,
                              capture_output=True, text=True).stdout.strip()
        self.commits.append((name, head))

    def typed(self) -> Counter:
        """How often each soak note reached an agent (from the agents' own logs)."""
        seen: Counter = Counter()
        for name in SESSIONS:
            log = self.logs / f"{name}.jsonl"
            if not log.exists():
                continue
            for row in log.read_text().splitlines():
                for match in TYPED.finditer(json.loads(row)["line"]):
                    seen[int(match["n"])] += 1
        return seen

    def run(self) -> dict[str, object]:
        self.plan()
        self.up()
        started = time.monotonic()
        self.churn(lambda: time.monotonic() - started >= SECONDS,
                   tmux_kills=(SECONDS * 0.35, SECONDS * 0.7))
        self.up()
        deadline = time.monotonic() + SETTLE
        while time.monotonic() < deadline and set(self.notes_sent) - set(self.typed()):
            time.sleep(0.5)  # a quiet room delivering its backlog; polled with a deadline
        return self.figures()

    def churn(self, done: Callable[[], bool], tmux_kills: tuple[float, ...] = ()) -> None:
        """The load and the chaos until `done()`: steps, a coordinator kill every 2-6 s,
        and the tmux server killed (then `up`) at each of `tmux_kills` seconds."""
        started = time.monotonic()
        kills = list(tmux_kills)
        next_kill = time.monotonic() + self.rng.uniform(2, 6)
        while not done():
            self.number += 1
            self.step(self.number)
            if kills and time.monotonic() - started >= kills[0]:
                kills.pop(0)
                self.server.kill_server()
                self.up()
            if time.monotonic() >= next_kill:
                self.kill_coordinator()
                next_kill = time.monotonic() + self.rng.uniform(2, 6)

    def figures(self) -> dict[str, object]:
        typed = self.typed()
        conn = connect(self.home / "bullpen.db")
        waiting = {int(body.removeprefix("soak-")) for (body,) in conn.execute(
            "SELECT n.body FROM notes n JOIN deliveries d ON d.note = n.id"
            " WHERE n.body LIKE 'soak-%' AND d.state != 'delivered'")}
        recorded = Counter(sha for (sha,) in conn.execute(
            "SELECT commit_sha FROM changes WHERE commit_sha IS NOT NULL"))
        covered = self.covered(conn)
        alerts = conn.execute("SELECT count(*) FROM alerts").fetchone()[0]
        conn.close()
        log = self.home / "logs" / "coordinator.log"
        text = log.read_text(errors="replace") if log.exists() else ""
        sent = set(self.notes_sent)
        return {
            "seconds": SECONDS, "sessions": len(SESSIONS),
            "notes sent": len(sent), "notes typed": len(sent & set(typed)),
            "notes still waiting (in the inbox)": len((sent - set(typed)) & waiting),
            "notes lost": len(sent - set(typed) - waiting),
            "notes duplicated": sum(1 for n in sent if typed[n] > 1),
            "commits made": len(self.commits),
            "commits recorded": sum(1 for made in self.commits if made in covered),
            "  of them folded into a later commit's change": sum(
                1 for name, sha in self.commits if (name, sha) in covered and not recorded[sha]),
            "commits recorded twice": sum(1 for _, sha in self.commits if recorded[sha] > 1),
            "alerts recorded": alerts,
            "coordinator kills": self.restarts, "tmux server kills": 2,
            "log errors": text.count(" ERROR "),
            "tracebacks": self.tracebacks + text.count("Traceback"),
            "cli calls": len(self.cli_seconds),
            "cli median seconds": round(sorted(self.cli_seconds)[len(self.cli_seconds) // 2], 3),
            "cli failures": len(self.cli_failures),
        }

    def covered(self, conn) -> set[tuple[str, str]]:
        """The commits a recorded change stands for, its files among the change's paths.

        The watcher and the start-up catch-up record the commits since the last recorded
        head as one change named by the newest (two commits within the debounce are one
        change), so a commit counts as recorded when it lies in such a range."""
        found: set[tuple[str, str]] = set()
        for name in SESSIONS:
            worktree = self.home / "worktrees" / name
            base = conn.execute("SELECT base FROM sessions WHERE name = ?", (name,)).fetchone()
            if not worktree.is_dir() or base is None:
                continue
            previous = base[0]
            for sha, paths in conn.execute(
                    "SELECT commit_sha, paths FROM changes WHERE changed_by = ?"
                    " AND commit_sha IS NOT NULL ORDER BY id", (name,)).fetchall():
                listed = set(json.loads(paths))
                for commit in git_lines(worktree, "rev-list", f"{previous}..{sha}"):
                    files = git_lines(worktree, "diff-tree", "--no-commit-id", "--name-only",
                                      "-r", commit)
                    if set(files) <= listed:
                        found.add((name, commit))
                previous = sha
        return found

    def close(self) -> None:
        subprocess.run([BULLPEN, "down"], cwd=self.repo, capture_output=True, check=False,
                       timeout=120)
        self.server.kill_server()


def git_lines(cwd: Path, *args: str) -> list[str]:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    return done.stdout.split()


def main() -> None:
    soak = Soak()
    try:
        figures = soak.run()
    finally:
        soak.close()
    width = max(len(key) for key in figures)
    for key, value in figures.items():
        print(f"{key:<{width}}  {value}")
    for failure in soak.cli_failures[:5]:
        print(f"  cli: {failure}")
    good = figures["notes lost"] == figures["notes duplicated"] == figures["tracebacks"] == 0
    print("target met: 0 lost, 0 duplicated, 0 tracebacks" if good else "TARGET MISSED")
    record(f"soak {SECONDS:.0f} s: notes lost / duplicated / tracebacks",
           f"{figures['notes lost']} / {figures['notes duplicated']} / {figures['tracebacks']}",
           "", None, "0 / 0 / 0", good)


if __name__ == "__main__":
    main()
