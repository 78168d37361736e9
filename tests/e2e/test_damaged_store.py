"""A store damaged or deleted while the room is up never traps the room: `down` stops
tmux, the coordinator and every agent whatever the store's state and says what it could
not record; a command that meets the damage names the cause and `bullpen doctor`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.e2e.conftest import Plan
from tests.waiting import wait_until
from workers.coordinator.lock import running_pid

pytestmark = pytest.mark.slow


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def truncate_wal(home: Path) -> None:
    os.truncate(home / "bullpen.db-wal", 1000)


def overwrite_wal(home: Path) -> None:
    wal = home / "bullpen.db-wal"
    wal.write_bytes(os.urandom(wal.stat().st_size))


def delete_db(home: Path) -> None:
    (home / "bullpen.db").unlink()


@pytest.mark.parametrize("damage", [truncate_wal, overwrite_wal, delete_db],
                         ids=["wal-truncated", "wal-overwritten", "db-deleted"])
def test_down_stops_everything_whatever_the_store_state(plan: Plan, damage) -> None:
    plan.write({"a": {}, "b": {}}, {})
    plan.up()
    live = plan.live
    coordinator = wait_until(lambda: running_pid(live.home), 15, message="a coordinator")
    for number in range(20):  # frames in the WAL
        live.cli("note", "send", "b", f"note {number}")
    agents = [int(pid) for pid in live.server.run(
        "list-panes", "-a", "-F", "#{pane_pid}").stdout.decode().split()]
    assert agents
    damage(live.home)
    sent = live.cli("note", "send", "b", "after the damage", check=False)
    if damage is not delete_db:
        assert sent.returncode == 1
        [line] = sent.stderr.splitlines()
        assert "no transaction is active" not in line and "run bullpen doctor" in line
    result = live.cli("down", check=False)
    assert result.returncode == 0, result.stderr
    # SQLite may read past a damaged WAL on a fresh connection; when it cannot, down says
    # what it could not record (a deleted store never can).
    recorded = "stopped a\nstopped b\n" in result.stdout
    assert recorded or ("could not record the sessions as stopped" in result.stdout
                        and "run bullpen doctor" in result.stdout), result.stdout
    assert damage is not delete_db or not recorded
    assert "stopped the coordinator and the room's tmux server" in result.stdout
    assert not live.server.is_alive()
    wait_until(lambda: not alive(coordinator) and not any(alive(p) for p in agents), 10,
               message="the coordinator and the agents to stop")
