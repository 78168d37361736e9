"""An 80x24 terminal: `bullpen attach` gives each session a window of its own and the
dashboard the whole room window (and says so); a big terminal puts them back beside it."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import termios
import threading
from pathlib import Path

import pytest

from tests.cli_runner import BULLPEN
from tests.rooms import LiveRoom, live_room
from tests.waiting import wait_until
from workers.tmux.layout import DASHBOARD, pane_of

pytestmark = pytest.mark.slow
PLAN = "agent: cat\nsessions:\n  alice: {deliver: type}\n  bob: {deliver: type}\n"


def windows(room: LiveRoom) -> list[tuple[str, int, int]]:
    """(name, panes, width) of each window of the visible room, in order."""
    out = room.server.check("list-windows", "-t", "=bullpen", "-F",
                            "#{window_name} #{window_panes} #{window_width}")
    return [(name, int(panes), int(width))
            for name, panes, width in (line.split() for line in out.splitlines())]


class Terminal:
    """A real terminal of a given size running a command (a pty, drained)."""

    def __init__(self, argv: list[str], cwd: Path, columns: int, rows: int) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self.process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave,
                                        cwd=cwd, env={**os.environ, "TERM": "xterm-256color"})
        os.close(slave)
        self.seen = bytearray()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.seen.extend(chunk)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        os.close(self.master)


def test_attach_in_80x24_gives_each_session_a_window_and_says_so(git_repo: Path,
                                                                 tmp_path: Path) -> None:
    (git_repo / "bullpen.yaml").write_text(PLAN)
    with live_room(git_repo, tmp_path / "logs") as room:
        room.cli("up", "--detach")
        assert [(name, panes) for name, panes, _ in windows(room)] == [("room", 3)]
        terminal = Terminal([BULLPEN, "attach"], git_repo, 80, 24)
        try:
            wait_until(lambda: [(n, p) for n, p, _ in windows(room)] ==
                       [("room", 1), ("alice", 1), ("bob", 1)], 20,
                       message=lambda: f"a window per session: {windows(room)}")
            wait_until(lambda: b"80x24: each session has a window of its own" in terminal.seen, 20,
                       message="the terminal is told why")
            dashboard = pane_of(room.server, DASHBOARD)
            wait_until(lambda: windows(room)[0][2] == 80, 20,
                       message=lambda: f"the room window at the terminal's width: {windows(room)}")
            width = room.server.check("display-message", "-p", "-t", dashboard,
                                      "#{pane_width}x#{pane_height}").strip()
            assert width == "80x23"  # the whole terminal but tmux's status line
            wait_until(lambda: "alice" in room.server.capture(dashboard)
                       and "ready" in room.server.capture(dashboard), 30,
                       message=lambda: f"a usable dashboard: {room.server.capture(dashboard)}")
            rows = room.sessions()
            assert all(row["status"] not in ("exited", "stopped") for row in rows.values())
        finally:
            terminal.close()

        big = Terminal([BULLPEN, "attach"], git_repo, 220, 60)
        try:
            wait_until(lambda: [(n, p) for n, p, _ in windows(room)] == [("room", 3)], 20,
                       message=lambda: f"sessions back beside the dashboard: {windows(room)}")
        finally:
            big.close()


def test_a_session_spawned_or_restarted_in_an_80x24_room_gets_a_window_of_its_own(
        git_repo: Path, tmp_path: Path) -> None:
    (git_repo / "bullpen.yaml").write_text(PLAN)
    with live_room(git_repo, tmp_path / "logs") as room:
        room.cli("up", "--detach")
        terminal = Terminal([BULLPEN, "attach"], git_repo, 80, 24)
        try:
            wait_until(lambda: [(n, p) for n, p, _ in windows(room)] ==
                       [("room", 1), ("alice", 1), ("bob", 1)], 20,
                       message=lambda: f"a window per session: {windows(room)}")
            room.cli("spawn", "extra", "--agent", "cat", "--no-dashboard")
            room.cli("restart", "alice")
            (git_repo / "bullpen.yaml").write_text(PLAN + "  carol: {deliver: type}\n")
            room.cli("up", "--detach")  # a new session of the plan, started with the others'
            wait_until(lambda: sorted((n, p) for n, p, _ in windows(room)) ==
                       [("alice", 1), ("bob", 1), ("carol", 1), ("extra", 1), ("room", 1)], 20,
                       message=lambda: f"the new panes in windows of their own: {windows(room)}")
            dashboard = pane_of(room.server, DASHBOARD)
            size = room.server.check("display-message", "-p", "-t", dashboard,
                                     "#{pane_width}x#{pane_height}").strip()
            assert size == "80x23"  # the dashboard keeps the whole terminal
        finally:
            terminal.close()
