"""snapshot_all and StatusTracker on real panes: one tmux process per tick."""

from __future__ import annotations

from pathlib import Path

import libtmux
import pytest

from tests.waiting import wait_until
from workers.coordinator.status import Status, StatusTracker
from workers.tmux.panes import PaneSnapshot, snapshot_all
from workers.tmux.server import RoomServer


@pytest.fixture
def room_tmux(server: libtmux.Server, tmp_path: Path) -> RoomServer:
    """A RoomServer on the libtmux fixture's private socket, with its session started."""
    room = RoomServer(server.socket_name or "")
    room.ensure_session("bullpen", cwd=tmp_path)
    return room


def counted(room: RoomServer, **kwargs: bool) -> tuple[dict[str, PaneSnapshot], int]:
    """One snapshot and the number of tmux processes it started."""
    before = room.calls
    snaps = snapshot_all(room, **kwargs)
    return snaps, room.calls - before


def launch_cats(room: RoomServer, cwd: Path, count: int) -> list[str]:
    return [room.launch("bullpen", "exec cat", cwd, {}, f"s{i}", new_window=True)
            for i in range(count)]


def test_one_tmux_call_per_tick_and_hashes_follow_output(room_tmux: RoomServer,
                                                         tmp_path: Path) -> None:
    panes = launch_cats(room_tmux, tmp_path, 6)
    first, calls = counted(room_tmux)
    assert calls <= 2  # first tick may have to list the panes first
    assert set(panes) <= set(first)
    steady, calls = counted(room_tmux)
    assert calls == 1
    assert all(steady[p].content_hash is not None for p in panes)

    room_tmux.check("send-keys", "-t", panes[2], "-l", "ping")
    latest: dict[str, PaneSnapshot] = {}

    def changed() -> bool:
        nonlocal latest
        latest, calls = counted(room_tmux)
        assert calls == 1
        return latest[panes[2]].content_hash != steady[panes[2]].content_hash

    wait_until(changed, message="pane content hash to change")
    for other in panes[:2] + panes[3:]:
        assert latest[other].content_hash == steady[other].content_hash
    assert latest[panes[2]].last_lines == ("ping",)


def test_panes_started_or_closed_elsewhere_cost_one_extra_call(room_tmux: RoomServer,
                                                               tmp_path: Path) -> None:
    panes = launch_cats(room_tmux, tmp_path, 5)
    counted(room_tmux)
    stranger = room_tmux.check("split-window", "-d", "-P", "-F", "#{pane_id}", "-t",
                               panes[0], "exec cat").strip()
    snaps, calls = counted(room_tmux)
    assert calls == 2 and stranger in snaps and snaps[stranger].content_hash
    assert snaps[stranger].session == ""  # not started by bullpen
    assert counted(room_tmux)[1] == 1
    room_tmux.check("kill-pane", "-t", panes[1])
    snaps, calls = counted(room_tmux)
    assert calls == 2 and panes[1] not in snaps
    assert all(snaps[p].content_hash for p in snaps)
    assert counted(room_tmux)[1] == 1


def test_list_only_is_one_call_without_hashes(room_tmux: RoomServer, tmp_path: Path) -> None:
    panes = launch_cats(room_tmux, tmp_path, 3)
    snaps, calls = counted(room_tmux, with_content=False)
    assert calls == 1
    assert all(snaps[p].content_hash is None for p in panes)
    assert snaps[panes[0]].current_command == "cat"


def test_status_tracker_on_real_panes(room_tmux: RoomServer, tmp_path: Path) -> None:
    asking = room_tmux.launch(
        "bullpen", "sh -c 'printf \"Allow edit of app.py? (y/n) \"; read answer; exit 5'",
        tmp_path, {}, "asker", new_window=True)
    quiet = room_tmux.launch("bullpen", "exec cat", tmp_path, {}, "quiet", new_window=True)
    tracker = StatusTracker(idle_after=0.2)
    latest: dict = {}

    def statuses_are(wanted: dict[str, Status]) -> bool:
        nonlocal latest
        latest = tracker.update(snapshot_all(room_tmux))
        return all(latest[pane].status is status for pane, status in wanted.items())

    wait_until(lambda: statuses_are({asking: Status.NEEDS_INPUT, quiet: Status.IDLE}),
               message=lambda: f"needs_input and idle, got {latest}")
    assert "Allow edit" in (latest[asking].prompt or "")
    room_tmux.check("send-keys", "-t", asking, "-l", "n")
    room_tmux.check("send-keys", "-t", asking, "Enter")
    wait_until(lambda: statuses_are({asking: Status.EXITED}) and latest[asking].exit_code == 5,
               message=lambda: f"exit 5, got {latest}")
