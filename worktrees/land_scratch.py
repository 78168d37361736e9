"""The temporary worktree a landing builds in, and what a killed landing leaves behind.

Each landing makes `<tmp>/bullpen-land-XXXX/result`, registered as a git worktree, and
writes `<tmp>/bullpen-land-XXXX/owner` (its process id, start time and session) before
registering it. A landing that ends normally removes both; one killed (kill -9, a
lost terminal) leaves the worktree registered. `remove_leftovers` finds those whose
owner is gone (or whose directory is) and removes them: the next landing and `bullpen
doctor` call it. A leftover whose owner still runs is another landing at work, and
is left alone.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from worktrees.gitcmd import run_git
from worktrees.repo import list_worktrees

PREFIX = "bullpen-land-"
RESULT = "result"
OWNER = "owner"
_PROC = Path("/proc")


@dataclass(frozen=True)
class Leftover:
    """A killed landing's temporary worktree (removed): whose it was, if it said."""

    path: Path
    pid: int | None
    label: str | None  # the session being landed


def make(label: str) -> Path:
    """A fresh scratch directory owned by this process; the worktree goes in `/result`."""
    scratch = Path(tempfile.mkdtemp(prefix=PREFIX))
    pid = os.getpid()
    (scratch / OWNER).write_text(json.dumps({"pid": pid, "started": _start_time(pid),
                                             "label": label}))
    return scratch


def remove(root: Path, scratch: Path) -> None:
    """Unregister and delete a scratch directory's worktree, then the directory."""
    run_git(root, "worktree", "remove", "--force", str(scratch / RESULT), ok=(0, 128))
    run_git(root, "worktree", "prune", ok=(0, 128))
    shutil.rmtree(scratch, ignore_errors=True)


def remove_leftovers(root: Path) -> list[Leftover]:
    """Remove every landing worktree of this repository whose landing is no longer
    running; returns what was removed (nothing when none was left)."""
    found = []
    for worktree in list_worktrees(root):
        path = worktree.path
        if path.name != RESULT or not path.parent.name.startswith(PREFIX):
            continue
        owner = _owner(path.parent)
        if owner is not None and _running(owner):
            continue  # another landing, at work now
        found.append(Leftover(path, owner.get("pid") if owner else None,
                              owner.get("label") if owner else None))
        remove(root, path.parent)
    return found


def _owner(scratch: Path) -> dict | None:
    try:
        owner = json.loads((scratch / OWNER).read_text())
    except (OSError, ValueError):
        return None
    return owner if isinstance(owner, dict) and isinstance(owner.get("pid"), int) else None


def _running(owner: dict) -> bool:
    """The owner process is alive and is the one that wrote the file (not a new process
    that was given the same id since)."""
    started = _start_time(owner["pid"])
    return started is not None and started == owner.get("started")


def _start_time(pid: int) -> int | None:
    """Process `pid`'s start (clock ticks since boot); None when it is gone or a zombie
    (killed, not yet reaped); 0 for a live one on a system without /proc."""
    if not _PROC.is_dir():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            return 0
        return 0
    try:
        text = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2:].split()
    if len(fields) < 20 or fields[0] in ("Z", "X"):
        return None
    return int(fields[19])
