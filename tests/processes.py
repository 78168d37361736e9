"""Looking at processes through /proc, for tests that must see what is still running."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def children(pid: int) -> list[int]:
    """The child processes of `pid` (none once it has exited)."""
    found: list[int] = []
    with contextlib.suppress(OSError, ValueError):  # it exits while it is looked at
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += [int(child) for child in (task / "children").read_text().split()]
    return found


def command_line(pid: int) -> str:
    """`pid`'s command line, words joined by spaces ('' once it has exited)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ") \
            .decode(errors="replace").strip()
    except OSError:
        return ""


def describe(pid: int) -> str:
    """'pid [state] command line', for a failure message."""
    return f"{pid} [{run_state(pid)}] {command_line(pid)}"


def run_state(pid: int) -> str:
    """`pid`'s state letter from /proc (R, S, D, Z for a zombie; '?' once it is gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "?"


def pipe_sharers(pid: int) -> list[str]:
    """The other processes holding a pipe `pid` has open, as 'pid command line': who keeps
    a reader of that pipe from ever seeing its end."""
    pipes = set(_pipes(pid))
    found = []
    for other in Path("/proc").iterdir():
        if other.name.isdigit() and int(other.name) != pid and pipes & set(_pipes(int(other.name))):
            found.append(f"{other.name} {command_line(int(other.name))}")
    return found


def _pipes(pid: int) -> list[str]:
    found = []
    with contextlib.suppress(OSError):  # it exits, or is not ours to read
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                if (target := os.readlink(fd)).startswith("pipe:"):
                    found.append(target)
    return found
