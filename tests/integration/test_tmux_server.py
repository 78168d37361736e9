"""RoomServer against real tmux on a private socket: launch, env, exits, focus, attach."""

from __future__ import annotations

import os
import re
from pathlib import Path

import libtmux
import pytest

from tests.waiting import wait_for_text, wait_until
from workers.tmux.panes import snapshot_all
from workers.tmux.server import (
    RoomServer,
    TmuxError,
    TmuxMissing,
    require_tmux,
    socket_name_for,
)
from workers.tmux.watch import PaneWatch


@pytest.fixture
def room_tmux(server: libtmux.Server, tmp_path: Path) -> RoomServer:
    """A RoomServer on the libtmux fixture's private socket, with its session started."""
    room = RoomServer(server.socket_name or "")
    room.ensure_session("bullpen", cwd=tmp_path)
    return room


def test_socket_name_is_stable_per_resolved_repo_path(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (tmp_path / "link").symlink_to(repo)
    name = socket_name_for(repo)
    assert re.fullmatch(r"bullpen-[0-9a-f]{10}", name)
    assert socket_name_for(tmp_path / "link") == name
    assert socket_name_for(tmp_path) != name


def test_missing_tmux_says_how_to_install(monkeypatch: pytest.MonkeyPatch,
                                          tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(TmuxMissing, match="apt-get install tmux") as caught:
        require_tmux()
    assert caught.value.exit_status == 2
    assert TmuxError.exit_status == 1


def test_ensure_session_is_idempotent(room_tmux: RoomServer, tmp_path: Path) -> None:
    assert room_tmux.is_alive()
    room_tmux.ensure_session("bullpen", cwd=tmp_path)
    listed = room_tmux.check("list-sessions", "-F", "#{session_name}").split()
    assert listed == ["bullpen"]


def test_dead_server_is_not_alive_and_has_no_panes() -> None:
    room = RoomServer("bullpen-test-never-started")
    assert not room.is_alive()
    assert snapshot_all(room) == {}


def test_launch_passes_env_and_cwd_and_names_the_pane(room_tmux: RoomServer,
                                                      tmp_path: Path) -> None:
    worktree = tmp_path / "worktree"
    worktree.mkdir()
    env = {"BULLPEN_SESSION": "alpha", "BULLPEN_TOKEN": "s3cret-token"}
    command = "sh -c 'echo \"S=$BULLPEN_SESSION\"; pwd; exec cat'"
    pane = room_tmux.launch("bullpen", command, worktree, env, "alpha", new_window=True)
    assert re.fullmatch(r"%\d+", pane)
    screen = wait_for_text(lambda: room_tmux.capture(pane), str(worktree.resolve()))
    assert screen.startswith("S=alpha\n")
    snap = snapshot_all(room_tmux)[pane]
    assert (snap.title, snap.session, snap.dead) == ("alpha", "alpha", False)
    cmdline = Path(f"/proc/{snap.pid}/cmdline")
    if cmdline.exists():  # the token is in the environment, not the agent's argv
        assert b"s3cret-token" not in cmdline.read_bytes()


def test_split_launch_targets_a_pane(room_tmux: RoomServer, tmp_path: Path) -> None:
    first = room_tmux.launch("bullpen", "exec cat", tmp_path, {}, "one", new_window=True)
    second = room_tmux.launch(first, "exec cat", tmp_path, {}, "two", new_window=False)
    window_of = room_tmux.check("display-message", "-p", "-t", second, "#{window_id}")
    assert window_of == room_tmux.check("display-message", "-p", "-t", first, "#{window_id}")


def test_an_exit_stays_visible_with_its_code(room_tmux: RoomServer, tmp_path: Path) -> None:
    pane = room_tmux.launch("bullpen", "exit 3", tmp_path, {}, "quitter", new_window=True)
    # dead_status follows pane_dead once tmux has reaped the process
    snap = wait_until(lambda: (s := snapshot_all(room_tmux)[pane]).dead_status is not None
                      and s, message="pane to be dead with a status")
    assert (snap.dead, snap.dead_status, snap.dead_signal) == (True, 3, None)
    assert room_tmux.pane_exists(pane)


def test_a_killed_agent_reports_its_signal(room_tmux: RoomServer, tmp_path: Path) -> None:
    pane = room_tmux.launch("bullpen", "kill -9 $$", tmp_path, {}, "killed", new_window=True)
    snap = wait_until(lambda: (s := snapshot_all(room_tmux)[pane]).dead_signal and s,
                      message="a dead signal")
    assert (snap.dead, snap.dead_signal, snap.dead_status) == (True, 9, None)


def test_respawn_keeps_the_pane_id(room_tmux: RoomServer, tmp_path: Path) -> None:
    pane = room_tmux.launch("bullpen", "exit 1", tmp_path, {}, "again", new_window=True)
    wait_until(lambda: snapshot_all(room_tmux)[pane].dead, message="first exit")
    room_tmux.respawn_pane(pane, "sh -c 'echo \"back=$X\"; exec cat'", tmp_path, {"X": "2"})
    wait_for_text(lambda: room_tmux.capture(pane), "back=2")
    assert not snapshot_all(room_tmux)[pane].dead


def test_kill_pane_and_pane_exists(room_tmux: RoomServer, tmp_path: Path) -> None:
    pane = room_tmux.launch("bullpen", "exec cat", tmp_path, {}, "doomed", new_window=True)
    assert room_tmux.pane_exists(pane)
    assert room_tmux.kill_pane(pane)
    assert not room_tmux.pane_exists(pane)
    assert not room_tmux.kill_pane(pane)
    assert pane not in snapshot_all(room_tmux)


def test_bad_pane_ids_are_refused(room_tmux: RoomServer) -> None:
    with pytest.raises(ValueError, match="pane id"):
        room_tmux.pane_exists("alpha")
    with pytest.raises(TmuxError, match="capture-pane"):
        room_tmux.capture("%9999")


def test_select_and_zoom(room_tmux: RoomServer, tmp_path: Path) -> None:
    left = room_tmux.launch("bullpen", "exec cat", tmp_path, {}, "left", new_window=True)
    right = room_tmux.launch(left, "exec cat", tmp_path, {}, "right")

    def flags(pane: str) -> str:
        return room_tmux.check("display-message", "-p", "-t", pane,
                               "#{pane_active}#{window_zoomed_flag}").strip()

    room_tmux.select_pane(right)
    assert flags(right) == "10"
    room_tmux.zoom_pane(right)
    room_tmux.zoom_pane(right)  # idempotent: still zoomed
    assert flags(right) == "11"
    room_tmux.zoom_pane(right, zoomed=False)
    assert flags(right) == "10"


def test_capture_includes_scrollback_when_asked(room_tmux: RoomServer,
                                                tmp_path: Path) -> None:
    command = "sh -c 'for i in $(seq 1 120); do echo line$i; done; echo END; exec cat'"
    pane = room_tmux.launch("bullpen", command, tmp_path, {}, "long", new_window=True)
    wait_for_text(lambda: room_tmux.capture(pane), "END")
    assert "line1\n" not in room_tmux.capture(pane)
    assert "line1\n" in room_tmux.capture(pane, lines=200)


def test_attach_command_inside_and_outside_tmux(room_tmux: RoomServer) -> None:
    base = room_tmux.base_argv()
    assert room_tmux.attach_command("bullpen", env={}) == [*base, "attach-session", "-t",
                                                           "bullpen"]
    ours = {"TMUX": f"{room_tmux.socket_path({})},123,0"}
    assert room_tmux.attach_command("%3", env=ours) == [*base, "switch-client", "-t", "%3"]
    other = {"TMUX": "/tmp/tmux-1000/default,99,0"}
    assert room_tmux.attach_command("bullpen", env=other)[:3] == ["env", "-u", "TMUX"]


def test_kill_server(room_tmux: RoomServer) -> None:
    room_tmux.kill_server()
    assert not room_tmux.is_alive()


def test_a_pane_whose_program_changes_in_silence_is_read_again(room_tmux: RoomServer,
                                                                tmp_path: Path) -> None:
    """No output, no subscription: the pane list's new program in front is enough for the
    watch to read that pane again (who owns its terminal is known only from a read)."""
    fifo = tmp_path / "go"
    os.mkfifo(fifo)
    pane = room_tmux.check("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "bullpen",
                           f"exec sh -c 'read go < {fifo}; exec cat'").strip()
    watch = PaneWatch(room_tmux, session="bullpen")
    try:
        wait_until(lambda: watch.snapshot().get(pane), 10, message="the pane's first read")
        watch.snapshot()  # settled: nothing new to read for it
        read = watch.captures
        fifo.write_text("now\n")  # sh execs cat, which prints nothing
        wait_until(lambda: room_tmux.check("display-message", "-p", "-t", pane,
                                           "#{pane_current_command}").strip() == "cat", 10,
                   message="cat in front")
        snap = watch.snapshot()[pane]
        assert snap.current_command == "cat"
        assert watch.captures > read  # read again, not carried over from sh's read
    finally:
        watch.close()
