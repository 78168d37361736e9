"""A `bullpen land` killed during its check (kill -9: no cleanup of its own) leaves its
temporary worktree registered; the next `bullpen land` or `bullpen doctor` removes it,
and `bullpen audit` shows the attempt (started before the check) and the cleanup. A
real repository, the real `bullpen` command, a real check held on a FIFO."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
import yaml

from board import sessions
from board.room import Room
from tests.cli_runner import BULLPEN, run_cli
from tests.conftest import commit_file, git
from tests.waiting import wait_until
from worktrees import create_worktree

LEFTOVER = "bullpen-land-"


def plan(repo: Path, check: str) -> None:
    (repo / "bullpen.yaml").write_text(yaml.safe_dump(
        {"land": {"strategy": "merge", "check": check}, "sessions": {"coder": {}}}))


def registered(repo: Path) -> list[str]:
    return [line for line in git(repo, "worktree", "list", "--porcelain").splitlines()
            if line.startswith("worktree ") and LEFTOVER in line]


@pytest.fixture
def coder(room: Room) -> Path:
    info = create_worktree(room.home.parent, "coder")
    sessions.register(room.conn, "coder", branch=info.branch, worktree=str(info.path),
                      base=info.base_commit)
    commit_file(info.path, "src/app.py", "def handler():\n    return 'v2'\n", "v2")
    return info.path


def kill_a_land_during_its_check(repo: Path, tmp_path: Path) -> str:
    """Start `bullpen land coder` with a check that waits on a FIFO, kill -9 the land once
    the check runs, end the orphaned check; returns the leftover worktree's path."""
    gate, started = tmp_path / "gate", tmp_path / "check.pid"
    os.mkfifo(gate)
    plan(repo, f"echo $$ > {started}; echo checking; read line < {gate}; echo released")
    land = subprocess.Popen([BULLPEN, "land", "coder"], cwd=repo, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        check_pid = int(wait_until(lambda: started.exists() and started.read_text().strip(),
                                   timeout=30, message="the check to start"))
        leftover = registered(repo)
        assert len(leftover) == 1, leftover  # the landing's own, while its check runs
    finally:
        land.kill()  # SIGKILL: the land gets no chance to clean up
        land.wait()
    os.kill(check_pid, signal.SIGKILL)  # the orphaned check, still waiting on the gate
    return leftover[0].removeprefix("worktree ")


@pytest.mark.parametrize("then", ["land", "doctor"])
def test_a_land_killed_during_its_check_leaves_nothing_registered_after_the_next_one(
        room: Room, coder: Path, tmp_path: Path, then: str) -> None:
    repo = room.home.parent
    base = git(repo, "rev-parse", "main")

    path = kill_a_land_during_its_check(repo, tmp_path)
    try:
        assert registered(repo) == [f"worktree {path}"]  # what a killed land leaves today
        assert git(repo, "rev-parse", "main") == base
        plan(repo, "echo fine")
        if then == "land":
            result = run_cli("land", "coder", "--quiet", cwd=repo)
            assert result.returncode == 0, result
            assert result.stdout.startswith("landed coder on main")
        else:
            result = run_cli("doctor", cwd=repo)
            assert f"removed {path}, left by a landing of coder (pid " in result.stdout, result
        assert registered(repo) == []
        assert not Path(path).parent.exists()
    finally:
        shutil.rmtree(Path(path).parent, ignore_errors=True)  # if a check above failed
    trail = json.loads(run_cli("audit", "--json", cwd=repo).stdout)
    mine = [(e["action"], e["target"], e["outcome"]) for e in trail]
    started = next(e for e in trail if e["outcome"] == "started")
    assert (started["actor"], started["action"], started["target"]) == \
        ("operator", "land", "coder")
    assert "read line <" in started["detail"]  # the check it was running
    cleanup = next(e for e in trail if e["action"] == "land cleanup")
    assert cleanup["target"] == "coder" and path in cleanup["detail"]
    assert mine.index(("land", "coder", "started")) < mine.index(
        ("land cleanup", "coder", "done"))


def test_a_landing_at_work_is_not_taken_for_a_leftover(room: Room, coder: Path,
                                                       tmp_path: Path) -> None:
    repo = room.home.parent
    gate, started = tmp_path / "gate", tmp_path / "check.pid"
    os.mkfifo(gate)
    plan(repo, f"echo $$ > {started}; read line < {gate}; echo released")
    land = subprocess.Popen([BULLPEN, "land", "coder"], cwd=repo, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        wait_until(lambda: started.exists() and started.read_text().strip(), timeout=30,
                   message="the check to start")
        doctor = run_cli("doctor", cwd=repo)
        assert "left by a landing" not in doctor.stdout
        assert len(registered(repo)) == 1  # still the running landing's
        with gate.open("w") as opened:  # let the check finish
            opened.write("go\n")
        out, _ = land.communicate(timeout=60)
    finally:
        if land.poll() is None:
            land.kill()
            land.wait()
    assert land.returncode == 0 and out.startswith("landed coder on main"), out
    assert registered(repo) == []
