"""The repositories a bench run made, so that a run ended by a signal takes their rooms down.

`scratch_repo` notes each repository here; `python -m bench` takes down, at its end and
when SIGTERM or SIGINT ends it, every room still running in one of them (`bullpen down`,
then the room's tmux server, which ends the panes and a coordinator that did not stop).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from workers.tmux.server import RoomServer, socket_name_for

MADE: list[Path] = []
# The private tmux servers of the benches' shell baselines and followers: NAME-<our pid>.
OWN_SERVERS = ("bench-scale", "bench-shell", "bench-follow", "bench-poll")
DOWN_TIMEOUT = "2"  # seconds the agents get before their panes are ended


def made(repo: Path) -> Path:
    """Note a repository a room may run in; returns it."""
    MADE.append(repo)
    return repo


def _bullpen() -> str:
    return str(Path(sys.executable).parent / "bullpen")


def room_down(bullpen: str | None, repo: Path, env: dict[str, str] | None = None) -> None:
    """`bullpen down` in `repo`, then its tmux server killed (no error if none runs)."""
    home_env = env or {"BULLPEN_HOME": str(repo / ".bullpen")}
    subprocess.run([bullpen or _bullpen(), "down", "--timeout", DOWN_TIMEOUT], cwd=repo,
                   env={**os.environ, **home_env}, check=False, timeout=60,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    RoomServer(socket_name_for(repo)).kill_server()


def running(repo: Path) -> bool:
    """Whether the room of `repo` still has a tmux server."""
    return subprocess.run(["tmux", "-L", socket_name_for(repo), "has-session"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          check=False).returncode == 0


def take_down_all() -> list[Path]:
    """Take down every room still running in a repository this run made (those are
    returned), and this process's own tmux servers."""
    left = [repo for repo in MADE if repo.exists() and running(repo)]
    for repo in left:
        room_down(None, repo)
    for name in OWN_SERVERS:
        subprocess.run(["tmux", "-L", f"{name}-{os.getpid()}", "kill-server"], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return left
