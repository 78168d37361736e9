"""Speed at scale: `up` of a 200-session plan against a shell script doing the same git and
tmux work one session at a time; and what following 200 idle panes costs, by polling
and by tmux control mode, against the same idle tmux server with nobody watching.

Each figure is a ratio to its primitive measured in the same run, rounds interleaved
(the machine is shared and noisy); medians and the spread (min-max) are printed.
`BULLPEN_BENCH_SCALE` sets the session count (default 200), `BULLPEN_BENCH_ROUNDS` the
rounds (default 3).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench.common import median, quick, scratch_repo
from bench.figures import record
from workers.coordinator.status import StatusTracker
from workers.tmux.panes import snapshot_all
from workers.tmux.server import RoomServer, socket_name_for
from workers.tmux.watch import PaneWatch

SESSIONS = int(os.environ.get("BULLPEN_BENCH_SCALE", quick(200, 10)))
ROUNDS = int(os.environ.get("BULLPEN_BENCH_ROUNDS", quick(3, 1)))
FILES = 200
FOLLOW_SECONDS = quick(20.0, 2.0)
PANE_TICK = 0.25  # the coordinator's pane tick

SHELL_UP = r"""
set -e
cd "$1"; sock="$2"; n="$3"
tmux -L "$sock" new-session -d -s bench -x 200 -y 50
for i in $(seq 1 "$n"); do
  git worktree add -q --no-track -b "shell/s$i" ".shell-wt/s$i" HEAD
  git config --local "branch.shell/s$i.bullpen-base" "$(git rev-parse HEAD)"
  pane=$(tmux -L "$sock" new-window -d -P -F '#{pane_id}' -t bench: -n "s$i" \
         -c ".shell-wt/s$i" 'exec cat')
  tmux -L "$sock" set-option -p -t "$pane" remain-on-exit on \; select-pane -t "$pane" -T "s$i" \; \
       respawn-pane -k -t "$pane" -e BULLPEN_SESSION="s$i" -e BULLPEN_TOKEN=x 'exec cat'
done
"""


def _repo() -> Path:
    repo = scratch_repo()
    (repo / "src").mkdir()
    for index in range(FILES):
        (repo / "src" / f"mod{index}.py").write_text(f"VALUE = {index}\n" * 20)
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "files"], cwd=repo, check=True, env=env)
    return repo


def _spread(values: list[float], unit: str = "s", scale: float = 1.0) -> str:
    return (f"median {median(values) * scale:.2f} {unit} (min {min(values) * scale:.2f},"
            f" max {max(values) * scale:.2f})")


def up_many(bullpen: str | None = None) -> None:
    bullpen = bullpen or str(Path(sys.executable).parent / "bullpen")
    shell, ours = [], []
    for _ in range(ROUNDS):
        shell.append(_shell_up(_repo()))
        ours.append(_bullpen_up(_repo(), bullpen))
    ratios = [mine / base for mine, base in zip(ours, shell, strict=True)]
    print(f"up of {SESSIONS} sessions ({FILES}-file repo, {ROUNDS} interleaved rounds):"
          f" shell script doing the same git and tmux calls per session {_spread(shell)};"
          f" bullpen up {_spread(ours)} (target <= 10 s);"
          f" ratio {_spread(ratios, 'x')}")
    record(f"up of {SESSIONS} sessions", f"{median(ours):.2f} s",
           f"shell script {median(shell):.2f} s", median(ratios), "<= 10 s",
           median(ours) <= 10.0)


def _shell_up(repo: Path) -> float:
    sock = f"bench-scale-{os.getpid()}"
    started = time.perf_counter()
    subprocess.run(["sh", "-c", SHELL_UP, "sh", str(repo), sock, str(SESSIONS)], check=True)
    elapsed = time.perf_counter() - started
    subprocess.run(["tmux", "-L", sock, "kill-server"], check=False)
    return elapsed


def _bullpen_up(repo: Path, bullpen: str) -> float:
    env = {**os.environ, "BULLPEN_HOME": str(repo / ".bullpen")}
    plan = "\n".join(f"  s{i}:\n    agent: exec cat" for i in range(SESSIONS))
    (repo / "bullpen.yaml").write_text(f"layout: windows\nsessions:\n{plan}\n")
    started = time.perf_counter()
    subprocess.run([bullpen, "up", "--detach", "--no-dashboard"], cwd=repo, env=env,
                   check=True, stdout=subprocess.DEVNULL)
    elapsed = time.perf_counter() - started
    subprocess.run([bullpen, "down", "--timeout", "2"], cwd=repo, env=env, check=False,
                   stdout=subprocess.DEVNULL)
    RoomServer(socket_name_for(repo)).kill_server()
    return elapsed


def follow_cpu() -> None:
    """CPU of following SESSIONS idle panes: nobody (the idle server alone), the old
    poller (every screen each tick), and control mode (only screens that changed)."""
    server = RoomServer("bench-follow-" + str(os.getpid()))
    server.ensure_session("bullpen")
    for _ in range(SESSIONS - 1):
        server.launch("bullpen", "exec cat", Path("/tmp"), {}, title="idle", new_window=True)
    server_pid = int(server.check("display-message", "-p", "#{pid}").strip())
    figures: dict[str, list[float]] = {"idle": [], "polling": [], "control": []}
    try:
        for _ in range(ROUNDS):
            figures["idle"].append(_measure(server_pid, lambda: time.sleep(PANE_TICK)))
            figures["polling"].append(_measure(server_pid, _poller(server)))
            watch = PaneWatch(server)
            watch.snapshot()
            figures["control"].append(_measure(server_pid, _follower(watch)))
            watch.close()
    finally:
        server.kill_server()
    idle = median(figures["idle"])
    for name in ("polling", "control"):
        print(f"following {SESSIONS} idle panes by {name}: watcher + tmux server"
              f" {_spread(figures[name], '% of a core')} against the idle tmux server's"
              f" {idle:.2f} %; added {median(figures[name]) - idle:.2f} % of a core"
              + (" (target < 1 %)" if name == "control" else ""))
    added = median(figures["control"]) - idle
    record(f"following {SESSIONS} idle panes (control mode): added", f"{added:.2f} % of a core",
           f"idle tmux server {idle:.2f} %", None, "< 1 %", added < 1.0)


def _poller(server: RoomServer) -> Callable[[], None]:
    tracker = StatusTracker()

    def step() -> None:
        tracker.update(snapshot_all(server))
        time.sleep(PANE_TICK)  # the coordinator's cadence, not a wait
    return step


def _follower(watch: PaneWatch) -> Callable[[], None]:
    tracker = StatusTracker()

    def step() -> None:
        if not watch.quiet():  # the coordinator skips a tick when nothing happened
            tracker.update(watch.snapshot())
        time.sleep(PANE_TICK)
    return step


def _measure(server_pid: int, step: Callable[[], object]) -> float:
    """% of a core used by this process, its children and the tmux server while `step`
    runs over and over for FOLLOW_SECONDS."""
    before = _cpu(server_pid)
    started = time.monotonic()
    while time.monotonic() - started < FOLLOW_SECONDS:
        step()
    wall = time.monotonic() - started
    return (_cpu(server_pid) - before) / wall * 100


def _cpu(server_pid: int) -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    fields = Path(f"/proc/{server_pid}/stat").read_text().rsplit(")", 1)[1].split()
    tmux = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + tmux


def main() -> None:
    follow_cpu()
    up_many(os.environ.get("BULLPEN_BENCH_BULLPEN"))
