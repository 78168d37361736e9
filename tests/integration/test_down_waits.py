"""`bullpen down` returns only once the agents' processes are gone (real tmux).

tmux closing a pane only hangs up its terminal; an agent that catches SIGHUP (Hermes,
finishing its turn) or ignores it lived on with PPID 1 after `down` returned, holding
its profile's files. The stand-in (tests/agents/hangup_agent.py) plays both.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from tests.rooms import LiveRoom, live_room
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

AGENT = Path(__file__).resolve().parents[1] / "agents" / "hangup_agent.py"


@pytest.fixture
def room(git_repo: Path, tmp_path: Path):
    with live_room(git_repo, tmp_path / "logs") as live:
        yield live


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def start(room: LiveRoom, name: str, state: Path, *how: str) -> tuple[int, int]:
    """Spawn the stand-in as session `name`; (its pid, its child's pid)."""
    room.cli("spawn", name, "--agent", f"{sys.executable} {AGENT} {state} {' '.join(how)}",
             "--no-dashboard")
    lines = wait_until(lambda: state.exists() and (text := state.read_text()).count("\n") >= 2
                       and text.splitlines(), 15, message=f"{name} to start")
    pids = dict(line.split() for line in lines[:2])
    return int(pids["pid"]), int(pids["child"])


def test_down_waits_for_an_agent_finishing_after_its_hangup(
        room: LiveRoom, tmp_path: Path) -> None:
    state = tmp_path / "finisher.state"
    pid, child = start(room, "finisher", state, "--finish-after", "2")
    began = time.monotonic()
    done = room.cli("down")
    assert "finished" in state.read_text().splitlines()  # it ended in its own time
    assert time.monotonic() - began >= 2
    assert not alive(pid) and not alive(child)
    assert "ended" not in done.stdout  # nothing had to be ended for it


def test_down_ends_an_agent_that_ignores_its_hangup_and_says_so(
        room: LiveRoom, tmp_path: Path) -> None:
    state = tmp_path / "stubborn.state"
    pid, child = start(room, "stubborn", state, "--ignore")
    done = room.cli("down", "--timeout", "1")
    assert not alive(pid) and not alive(child)  # the whole process group, at return
    said = [line for line in done.stdout.splitlines() if line.startswith("stubborn:")]
    assert len(said) == 1, done.stdout
    assert f"(pid {pid})" in said[0] and f"(pid {child})" in said[0]
    assert "ended its process group (SIGKILL)" in said[0]  # it ignored SIGTERM too
    assert "got SIGTERM" in state.read_text()
    room.cli("up", "--detach", "--no-dashboard")  # the room comes back after it
    assert os.path.exists(room.home / "bullpen.db")


def test_stop_waits_for_the_agent_and_ends_one_that_ignores_its_hangup(
        room: LiveRoom, tmp_path: Path) -> None:
    room.cli("up", "--detach", "--no-dashboard")
    finisher, stubborn = tmp_path / "finisher.state", tmp_path / "stubborn.state"
    pid, child = start(room, "finisher", finisher, "--finish-after", "1")
    room.cli("stop", "finisher")
    assert "finished" in finisher.read_text().splitlines()
    assert not alive(pid) and not alive(child)
    pid, child = start(room, "stubborn", stubborn, "--ignore")
    done = room.cli("stop", "stubborn")  # 10 s, then SIGTERM (ignored), then SIGKILL
    assert not alive(pid) and not alive(child)
    assert "stubborn: " in done.stdout and "(SIGKILL)" in done.stdout
