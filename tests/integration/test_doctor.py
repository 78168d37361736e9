"""`bullpen doctor` names what is wrong and the command that fixes it: a damaged or lost
store, a broken lock, a dead coordinator, worktrees out of step with the sessions."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from board import sessions
from board.room import open_room
from tests.cli_runner import run_cli
from tests.conftest import git
from tests.rooms import live_room
from workers.coordinator.lock import lock_path
from worktrees import create_worktree


def doctor(repo: Path) -> tuple[int, list[dict], str]:
    result = run_cli("doctor", "--json", cwd=repo)
    assert "Traceback" not in result.stderr, result.stderr
    text = run_cli("doctor", cwd=repo).stdout
    return result.returncode, json.loads(result.stdout), text


def failing(findings: list[dict]) -> dict[str, dict]:
    return {f["area"]: f for f in findings if not f["ok"]}


def test_a_quiet_healthy_room_is_all_good(git_repo: Path) -> None:
    open_room(env={}, start=git_repo).close()
    status, findings, text = doctor(git_repo)
    assert status == 0, findings
    assert {f["area"] for f in findings} >= {"room", "store", "coordinator", "tmux",
                                            "worktrees"}
    assert text.strip().endswith("all good")


def test_damaged_pages_are_found_by_the_quick_check(room, git_repo: Path) -> None:
    for number in range(300):
        sessions.register(room.conn, f"s{number}")
    room.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    room.close()
    db = git_repo / ".bullpen" / "bullpen.db"
    with db.open("r+b") as handle:
        for offset in range(4096 * 2, db.stat().st_size, 4096):
            handle.seek(offset + 100)
            handle.write(os.urandom(2000))
    status, findings, text = doctor(git_repo)
    assert status == 1
    store = failing(findings)["store"]
    assert "is damaged" in store["what"] and ".recover" in store["fix"]
    assert "FAIL  store" in text and "fix: bullpen down; sqlite3" in text


def test_a_lost_database_and_a_broken_lock(room, git_repo: Path) -> None:
    home = room.home
    room.close()
    (home / "worktrees").mkdir(exist_ok=True)
    for leftover in home.glob("bullpen.db*"):
        leftover.unlink()
    lock_path(home).mkdir()
    status, findings, _ = doctor(git_repo)
    assert status == 1
    bad = failing(findings)
    assert "is missing" in bad["store"]["what"]
    assert "not the coordinator's lock file" in bad["coordinator"]["what"]
    assert bad["coordinator"]["fix"] == f"rm -r {lock_path(home)}"
    assert not (home / "bullpen.db").exists()  # doctor changes nothing


def test_worktrees_out_of_step_with_the_sessions(room, git_repo: Path) -> None:
    kept = create_worktree(git_repo, "gone")
    sessions.register(room.conn, "gone", worktree=str(kept.path), branch=kept.branch)
    stray = create_worktree(git_repo, "stray")
    git(git_repo, "worktree", "remove", "--force", str(kept.path))
    status, findings, _ = doctor(git_repo)
    assert status == 1
    problems = {f["what"]: f["fix"] for f in findings if f["area"] == "worktrees"}
    assert any("gone's worktree" in what and fix == "bullpen restart gone"
               for what, fix in problems.items())
    assert any(f"{stray.path} belongs to no session" in what for what in problems)


@pytest.mark.slow
def test_a_live_room_then_a_dead_coordinator(git_repo: Path, tmp_path: Path) -> None:
    with live_room(git_repo, tmp_path / "logs") as live:
        live.cli("spawn", "a", "--agent", live.agent("a"), "--no-dashboard")
        live.wait_status("a", "idle")
        status, findings, _ = doctor(git_repo)
        assert status == 0, failing(findings)
        live.kill_coordinator()
        status, findings, _ = doctor(git_repo)
        assert status == 1
        assert failing(findings)["coordinator"]["fix"] == "bullpen up"


def test_doctor_reports_each_log_and_its_size(room, git_repo: Path) -> None:
    logs_dir = room.home / "logs"
    logs_dir.mkdir(exist_ok=True)
    (logs_dir / "hooks.log").write_text("x" * 3000)
    (logs_dir / "coordinator.log").write_text("y" * 10)
    room.close()
    _, findings, text = doctor(git_repo)
    [found] = [f for f in findings if f["area"] == "logs"]
    assert found["ok"] and "hooks.log 2 KiB" in found["what"]
    assert "coordinator.log 10 B" in found["what"] and "rotates at 1 MiB" in found["what"]
    assert "logs: coordinator.log 10 B" in text


def test_a_room_brought_down_is_down_not_broken(git_repo: Path, tmp_path: Path) -> None:
    (git_repo / "bullpen.yaml").write_text("agent: cat\nsessions:\n  sh1: {}\n  py: {}\n")
    with live_room(git_repo, tmp_path / "logs") as room:
        room.cli("up", "--detach", "--no-dashboard")
        room.cli("down")
        status, findings, text = doctor(git_repo)
        assert status == 0, findings
        assert failing(findings) == {}
        assert "the room is down (bullpen up starts it)" in text
        assert text.strip().endswith("all good")
        room.cli("up", "--detach", "--no-dashboard")
        room.cli("down", "--remove-worktrees")  # removed on purpose: not missing ones
        status, findings, _ = doctor(git_repo)
        assert (status, failing(findings)) == (0, {}), findings
        room.cli("up", "--detach", "--no-dashboard")
        room.server.kill_server()  # a crash is not a clean stop: still said
        status, findings, _ = doctor(git_repo)
        assert status == 1 and "tmux" in failing(findings)
