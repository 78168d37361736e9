"""`python -m bench` ended by a signal takes its rooms down (issue 34: a SIGTERM to
`bench idle` left a 200-pane room running, its `finally` never ran) and still prints its
table. A real bench process, a real room of `exec cat` sessions, a real signal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.waiting import wait_until
from workers.coordinator.lock import running_pid
from workers.tmux.server import socket_name_for

ROOT = Path(__file__).resolve().parents[2]


def _room_of(tmp: Path) -> Path | None:
    """The bench's repository once its room's coordinator runs."""
    for repo in tmp.glob("bullpen-bench-*/repo"):
        if (repo / ".bullpen").is_dir() and running_pid(repo / ".bullpen") is not None:
            return repo
    return None


def _tmux_alive(repo: Path) -> bool:
    return subprocess.run(["tmux", "-L", socket_name_for(repo), "has-session"],
                          capture_output=True, check=False).returncode == 0


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_a_signalled_bench_takes_its_room_down(tmp_path: Path, signum: int) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path), "BULLPEN_BENCH_SCALE": "3"}
    bench = subprocess.Popen([sys.executable, "-m", "bench", "--quick", "idle"], cwd=ROOT,
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
    repo = None
    try:
        repo = wait_until(lambda: _room_of(tmp_path), 120, interval=0.1,
                          message="the bench's room to be up with its coordinator")
        coordinator = running_pid(repo / ".bullpen")
        assert coordinator is not None and _tmux_alive(repo)
        bench.send_signal(signum)
        output, _ = bench.communicate(timeout=90)
        assert bench.returncode == 128 + signum, output
        assert f"stopped by {signal.Signals(signum).name}" in output
        assert "bench  figure" in output  # the table of what was measured so far
        assert not _tmux_alive(repo), output
        wait_until(lambda: not _alive(coordinator), 10,
                   message=f"the coordinator {coordinator} to have exited")
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait()
        if repo is not None and _tmux_alive(repo):  # what the old code left: not to others
            subprocess.run(["tmux", "-L", socket_name_for(repo), "kill-server"], check=False)
