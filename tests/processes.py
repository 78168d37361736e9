"""Looking at processes through /proc, for tests that must see what is still running."""

from __future__ import annotations

import contextlib
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
