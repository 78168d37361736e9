"""What an idle room's coordinator costs: `bullpen up --detach --no-dashboard` of a plan of
SESSIONS `exec cat` sessions (layout: windows); once `up` is done, every session idle and
the coordinator settled, the CPU of the coordinator process (with the children it
waited for: git) and of the room's tmux server over MEASURE seconds, from /proc; then
the same tmux server with the coordinator stopped (the idle server alone: the median of
short slices, so that another program poking it once does not count). The figure is
what the coordinator adds: its own CPU and what it made tmux do, in % of one core.

Each round runs the coordinator as it is (periodic reads only when a stamp moved:
workers/coordinator/stamps.py) and with the stamps off (BULLPEN_BENCH_NO_STAMPS=1, every
periodic read each round, as before), interleaved. `BULLPEN_BENCH_SCALE` sets the
session count (default 200), `BULLPEN_BENCH_ROUNDS` the rounds (default 2).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench.common import is_quick, median, quick
from bench.figures import record
from bench.rooms import room_down
from bench.scale_bench import _repo
from board import sessions
from board.db import connect
from board.home import DB_NAME
from workers.coordinator.lock import running_pid
from workers.coordinator.stamps import OFF
from workers.tmux.server import RoomServer, socket_name_for

SESSIONS = int(os.environ.get("BULLPEN_BENCH_SCALE", quick(200, 10)))
ROUNDS = int(os.environ.get("BULLPEN_BENCH_ROUNDS", quick(2, 1)))
# Seconds measured: the coordinator's periodic work comes every 30 s (the radar's and
# the panes' backstops), so a window of 30 s holds one of each.
MEASURE = quick(30.0, 3.0)
ALONE_WINDOWS = quick(6, 3)  # the idle server alone: the median of this many MEASURE-long slices
SETTLE = 3.0  # seconds a settled coordinator stays under SETTLED_BELOW % of a core
SETTLED_BELOW = 5.0
START_TIMEOUT = 180.0  # seconds for the room to come up idle and settle


def _cpu(pid: int, children: bool = True) -> float:
    """CPU seconds of `pid` (and of the children it waited for)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    if children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / os.sysconf("SC_CLK_TCK")


def _rate(pids: list[int], seconds: float) -> list[float]:
    """% of a core each of `pids` used over `seconds`."""
    before, started = [_cpu(pid) for pid in pids], time.monotonic()
    time.sleep(seconds)  # the measurement window itself, not a wait for a condition
    wall = time.monotonic() - started
    return [(_cpu(pid) - was) / wall * 100 for pid, was in zip(pids, before, strict=True)]


def _all_idle(home: Path) -> bool:
    conn = connect(home / DB_NAME)
    try:
        known = sessions.all_sessions(conn)
    finally:
        conn.close()
    return len(known) == SESSIONS and all(s.status == "idle" for s in known)


def _settle(home: Path, pid: int) -> None:
    """Until every session is idle and the coordinator's start-up work is done."""
    deadline = time.monotonic() + START_TIMEOUT
    while not _all_idle(home):
        if time.monotonic() > deadline:
            raise RuntimeError("the room did not come up idle")
        time.sleep(0.5)  # polling the store with a deadline
    while _rate([pid], SETTLE)[0] >= SETTLED_BELOW:
        if time.monotonic() > deadline:
            raise RuntimeError("the coordinator did not settle")


def _stopped(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"  # its parent (the tmux server) has not reaped it yet


def one_round(bullpen: str, stamps: bool) -> tuple[float, float, float]:
    """(coordinator %, tmux server % with it, tmux server % alone) of one fresh room."""
    repo = _repo()
    env = {**os.environ, "BULLPEN_HOME": str(repo / ".bullpen")}
    env.pop(OFF, None)
    if not stamps:
        env[OFF] = "1"
    plan = "\n".join(f"  s{i}:\n    agent: exec cat" for i in range(SESSIONS))
    (repo / "bullpen.yaml").write_text(f"layout: windows\nsessions:\n{plan}\n")
    server = RoomServer(socket_name_for(repo))
    try:
        began = time.monotonic()
        subprocess.run([bullpen, "up", "--detach", "--no-dashboard"], cwd=repo, env=env,
                       check=True, stdout=subprocess.DEVNULL, timeout=START_TIMEOUT)
        home = repo / ".bullpen"
        pid = running_pid(home)
        if pid is None:
            raise RuntimeError("no coordinator runs after up")
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        if (f"{OFF}=1".encode() in environ) == stamps:
            raise RuntimeError(f"the coordinator did not get {OFF} as asked")
        tmux = int(server.check("display-message", "-p", "#{pid}").strip())
        up_took = time.monotonic() - began
        _settle(home, pid)
        print(f"  round ({'stamps' if stamps else 'stamps off'}): up {up_took:.1f} s, idle and"
              f" settled {time.monotonic() - began - up_took:.1f} s later; measuring"
              f" {MEASURE:.0f} s + {MEASURE:.0f} s alone", flush=True)
        coordinator, with_it = _rate([pid, tmux], MEASURE)
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while not _stopped(pid) and time.monotonic() < deadline:
            time.sleep(0.05)  # waiting for its exit, with a deadline
        # Median of short slices: another program poking the server once is not its own.
        alone = median([_rate([tmux], MEASURE / ALONE_WINDOWS)[0]
                        for _ in range(ALONE_WINDOWS)])
        return coordinator, with_it, alone
    finally:
        room_down(bullpen, repo, env)
        server.kill_server()


def _line(label: str, rounds: list[tuple[float, float, float]]) -> str:
    added = [c + w - a for c, w, a in rounds]
    own = [c for c, _, _ in rounds]
    return (f"{label}: adds {median(added):.2f} % of a core (min {min(added):.2f},"
            f" max {max(added):.2f}) above the idle tmux server"
            f" ({median([a for _, _, a in rounds]):.2f} %); the coordinator itself"
            f" {median(own):.2f} %, the tmux server with it"
            f" {median([w for _, w, _ in rounds]):.2f} %")


def main() -> None:
    bullpen = os.environ.get("BULLPEN_BENCH_BULLPEN") or str(Path(sys.executable).parent
                                                              / "bullpen")
    gated: list[tuple[float, float, float]] = []
    before: list[tuple[float, float, float]] = []
    for _ in range(ROUNDS):
        if not is_quick():  # the comparison with the stamps off: not for a developer's loop
            before.append(one_round(bullpen, stamps=False))
        gated.append(one_round(bullpen, stamps=True))
    print(f"idle coordinator of {SESSIONS} `exec cat` sessions over {MEASURE:.0f} s,"
          f" {ROUNDS} interleaved rounds:")
    print("  " + _line("with stamps (target < 1 %)", gated))
    if before:
        print("  " + _line(f"stamps off ({OFF}=1, as before)", before))
    added = median([c + w - a for c, w, a in gated])
    record(f"coordinator of {SESSIONS} idle sessions: added", f"{added:.2f} % of a core",
           f"idle tmux server {median([a for _, _, a in gated]):.2f} %", None, "< 1 %",
           added < 1.0)
