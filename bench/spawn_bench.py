"""Spawning 10 sessions with `bullpen spawn` vs a shell script doing the same git and tmux
calls, on a repository of a realistic size; and the status poller with 50 idle panes."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from bench.common import median, quick, scratch_repo
from bench.figures import record
from workers.coordinator.status import StatusTracker
from workers.tmux.panes import snapshot_all
from workers.tmux.server import RoomServer, socket_name_for

SESSIONS = 10
FILES = quick(2000, 200)
POLL_PANES = quick(50, 10)
POLL_SECONDS = quick(30.0, 2.0)
PANE_TICK = 0.25

SHELL_SPAWN = r"""
set -e
cd "$1"; sock="$2"; n="$3"
tmux -L "$sock" new-session -d -s bench -x 200 -y 50
for i in $(seq 1 "$n"); do
  git worktree add -q -b "shell/s$i" ".shell-wt/s$i" HEAD
  pane=$(tmux -L "$sock" split-window -d -P -F '#{pane_id}' -t bench -c ".shell-wt/s$i" 'exec cat')
  tmux -L "$sock" set-option -p -t "$pane" remain-on-exit on \; select-pane -t "$pane" -T "s$i" \; \
       respawn-pane -k -t "$pane" -e BULLPEN_SESSION="s$i" -e BULLPEN_TOKEN=x 'exec cat' \; \
       select-layout -t bench tiled
done
"""


def _repo_with_files() -> Path:
    repo = scratch_repo()
    for index in range(FILES):
        folder = repo / "src" / f"pkg{index % 40}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{index}.py").write_text(f"VALUE = {index}\n" * 20)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "files"], cwd=repo, check=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
                        "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"})
    return repo


def spawn_ratio(rounds: int = quick(5, 1)) -> None:
    """Interleaved rounds (the machine is noisy: one checkout can take 3x another); each
    round's ratio compares runs made moments apart, and the median ratio is reported."""
    bullpen = str(Path(sys.executable).parent / "bullpen")
    shell, up, separate = [], [], []
    for _ in range(rounds):
        shell.append(_shell_run(_repo_with_files()))
        up.append(_bullpen_run(_repo_with_files(), bullpen, "up"))
        separate.append(_bullpen_run(_repo_with_files(), bullpen, "spawn"))
    up_ratio = median([ours / base for ours, base in zip(up, shell, strict=True)])
    spawn_ratio_ = median([ours / base for ours, base in zip(separate, shell, strict=True)])
    print(f"start {SESSIONS} sessions ({FILES}-file repo, {rounds} interleaved rounds):"
          f" shell script median {median(shell):.2f} s; bullpen up with a plan of {SESSIONS}"
          f" median {median(up):.2f} s, median ratio {up_ratio:.2f}x (target <= 1.3x);"
          f" {SESSIONS} separate bullpen spawn processes median {median(separate):.2f} s,"
          f" median ratio {spawn_ratio_:.2f}x")
    record(f"start {SESSIONS} sessions (up)", f"{median(up):.2f} s",
           f"shell script {median(shell):.2f} s", up_ratio, "<= 1.3x", up_ratio <= 1.3)


def _shell_run(repo: Path) -> float:
    sock = f"bench-shell-{os.getpid()}"
    started = time.perf_counter()
    subprocess.run(["sh", "-c", SHELL_SPAWN, "sh", str(repo), sock, str(SESSIONS)], check=True)
    elapsed = time.perf_counter() - started
    subprocess.run(["tmux", "-L", sock, "kill-server"], check=False)
    return elapsed


def _bullpen_run(repo: Path, bullpen: str, how: str) -> float:
    """Seconds for bullpen to start SESSIONS sessions, by one `up` or separate spawns."""
    env = {**os.environ, "BULLPEN_HOME": str(repo / ".bullpen")}
    if how == "up":
        plan = "\n".join(f"  s{i}:\n    agent: exec cat" for i in range(SESSIONS))
        (repo / "bullpen.yaml").write_text(f"sessions:\n{plan}\n")
    started = time.perf_counter()
    if how == "up":
        subprocess.run([bullpen, "up", "--detach", "--no-dashboard"], cwd=repo, env=env,
                       check=True, stdout=subprocess.DEVNULL)
    else:
        for index in range(SESSIONS):
            subprocess.run([bullpen, "spawn", f"s{index}", "--agent", "exec cat",
                            "--no-dashboard"], cwd=repo, env=env, check=True,
                           stdout=subprocess.DEVNULL)
    elapsed = time.perf_counter() - started
    subprocess.run([bullpen, "down"], cwd=repo, env=env, check=False, stdout=subprocess.DEVNULL)
    RoomServer(socket_name_for(repo)).kill_server()
    return elapsed


def poller_cpu() -> None:
    server = RoomServer("bench-poll-" + str(os.getpid()))
    server.ensure_session("bench")
    for _ in range(POLL_PANES - 1):
        server.launch("bench", "exec cat", Path("/tmp"), {}, title="idle", new_window=True)
    tracker = StatusTracker()
    snapshot_all(server)
    server_pid = int(server.check("display-message", "-p", "#{pid}").strip())
    server_before = _process_cpu(server_pid)
    calls_before = server.calls
    usage_before = resource.getrusage(resource.RUSAGE_SELF)
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    ticks = 0
    started = time.monotonic()
    while time.monotonic() - started < POLL_SECONDS:
        tracker.update(snapshot_all(server))
        ticks += 1
        time.sleep(PANE_TICK)  # the poller's own cadence, not a wait for a condition
    wall = time.monotonic() - started
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    own = (usage.ru_utime + usage.ru_stime) - (usage_before.ru_utime + usage_before.ru_stime)
    tmux_cpu = ((children.ru_utime + children.ru_stime)
                - (children_before.ru_utime + children_before.ru_stime))
    server_cpu = _process_cpu(server_pid) - server_before
    server.kill_server()
    print(f"status poller, {POLL_PANES} idle panes, {wall:.0f} s at {PANE_TICK} s ticks:"
          f" {(server.calls - calls_before - 1) / ticks:.2f} tmux calls per tick (target 1);"
          f" poller {own / wall * 100:.1f} % of a core + tmux clients {tmux_cpu / wall * 100:.1f}"
          f" %; the tmux server {server_cpu / wall * 100:.1f} % (one capture of every pane"
          " per tick)")
    per_tick = (server.calls - calls_before - 1) / ticks
    record(f"status poller, {POLL_PANES} panes: tmux calls per tick", f"{per_tick:.2f}",
           "", None, "1", per_tick <= 1.0)


def _process_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    spawn_ratio()
    poller_cpu()
