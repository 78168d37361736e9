"""Running a real room in tests: `up --detach` in a temp repository, `down` afterwards.

Rooms run without the dashboard pane (`--no-dashboard`) so tests don't depend on the
Textual app; the dashboard has its own tests.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from board.db import connect
from tests.agents.scripted_agent import command_line
from tests.cli_runner import run_cli
from tests.waiting import wait_until
from workers.coordinator.lock import running_pid
from workers.tmux.server import RoomServer, socket_name_for


@dataclass
class LiveRoom:
    repo: Path
    logs: Path

    @property
    def home(self) -> Path:
        return self.repo / ".bullpen"

    @property
    def server(self) -> RoomServer:
        return RoomServer(socket_name_for(self.repo))

    def cli(self, *args: str, env: dict[str, str] | None = None,
            check: bool = True) -> subprocess.CompletedProcess:
        result = run_cli(*args, cwd=self.repo, env=env)
        if check and result.returncode != 0:
            raise AssertionError(f"bullpen {' '.join(args)} failed: {result.stderr}")
        return result

    def agent(self, name: str, *extra: str) -> str:
        """The command line of a scripted agent logging to this room's log dir."""
        return command_line(self.logs / f"{name}.jsonl", *extra)

    def log_rows(self, name: str) -> list[dict]:
        """The scripted agent's log: one `{"line", "t"}` per line it received."""
        log = self.logs / f"{name}.jsonl"
        if not log.exists():
            return []
        return [json.loads(row) for row in log.read_text().splitlines() if row]

    def lines_of(self, name: str) -> list[str]:
        """What the scripted agent of `name` has received so far."""
        return [row["line"] for row in self.log_rows(name)]

    def wait_for_line(self, name: str, needle: str, timeout: float = 15.0) -> str:
        def found() -> str | None:
            return next((line for line in self.lines_of(name) if needle in line), None)
        return wait_until(found, timeout,
                          message=lambda: f"{needle!r} in {name}'s input: {self.lines_of(name)}")

    def sessions(self) -> dict[str, dict]:
        return {row["name"]: row for row in json.loads(self.cli("ls", "--json").stdout)}

    def wait_status(self, name: str, status: str, timeout: float = 15.0) -> dict:
        return wait_until(lambda: (row := self.sessions().get(name)) and
                          row["status"] == status and row, timeout,
                          message=lambda: f"{name} {status}: {self.sessions().get(name)}")

    def db(self):
        return connect(self.home / "bullpen.db")

    def pane_text(self, name: str) -> str:
        pane = self.sessions()[name]["pane"]
        return self.server.capture(pane) if pane else ""

    def kill_coordinator(self, timeout: float = 10.0) -> int:
        """kill -9 the room's coordinator and wait until its lock is free; its pid."""
        pid = running_pid(self.home)
        assert pid is not None, "no coordinator runs"
        os.kill(pid, signal.SIGKILL)
        wait_until(lambda: running_pid(self.home) is None, timeout,
                   message="the coordinator's lock to be released")
        return pid


@contextmanager
def live_room(repo: Path, logs: Path) -> Iterator[LiveRoom]:
    """A room for `repo`; whatever the test started is brought down at the end."""
    logs.mkdir(parents=True, exist_ok=True)
    room = LiveRoom(repo, logs)
    try:
        yield room
    finally:
        run_cli("down", cwd=repo)
        room.server.kill_server()
