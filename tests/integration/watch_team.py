"""A team of sessions a and b beside the main checkout, watched by a real Watcher whose
batches become real alerts: what the watcher's integration tests share."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from board import alerts, notes, reads, sessions
from board.room import Room
from tests.conftest import git
from workers.coordinator.change_filter import ChangeBatch
from workers.coordinator.watcher import Watcher

DEADLINE = 5.0


def wait_until(predicate: Callable[[], object], what: str, timeout: float = DEADLINE) -> None:
    """Poll `predicate` until it is truthy; fail naming `what` after the deadline."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        pause.wait(0.01)


@dataclass
class Team:
    repo: Path
    room: Room
    watcher: Watcher
    batches: list[ChangeBatch] = field(default_factory=list)

    def tree(self, name: str) -> Path:
        return self.repo / ".bullpen" / "worktrees" / name

    def add_session(self, name: str) -> Path:
        path = self.tree(name)
        git(self.repo, "worktree", "add", "-q", "-b", f"bullpen/{name}", str(path))
        sessions.register(self.room.conn, name, branch=f"bullpen/{name}", worktree=str(path),
                          base=git(self.repo, "rev-parse", "HEAD").strip())
        return path

    def alerts_of(self, name: str) -> list[alerts.Alert]:
        return alerts.for_session(self.room.conn, name)

    def sentinel(self, where: Path) -> None:
        """Write a file nobody read and wait for its batch: everything before is handled."""
        marker = where / f"sentinel-{len(self.batches)}-{time.monotonic_ns()}.txt"
        marker.write_text("x")
        name = marker.name
        wait_until(lambda: any(name in p for b in self.batches for p in b.paths),
                   f"the batch for {name}")

    def seen_paths(self) -> set[str]:
        return {path for batch in self.batches for path in batch.paths}


def edit(path: Path, text: str) -> None:
    path.write_text(text)


def ack(team: Team, name: str) -> None:
    notes.mark_delivered(team.room.conn, name,
                         [n.id for n in notes.pending(team.room.conn, name)], "test")


def a_commits_what_b_read(team: Team) -> str:
    """b has read src/app.py; a commits its version of it (b's alert taken): a's sha."""
    reads.record(team.room.conn, "b", ["src/app.py"])
    tree = team.tree("a")
    edit(tree / "src" / "app.py", "a's version\n")
    git(tree, "commit", "-qam", "a's version")
    sha = git(tree, "rev-parse", "HEAD").strip()
    wait_until(lambda: any(b.commit == sha for b in team.batches), "a's commit")
    ack(team, "b")
    return sha
