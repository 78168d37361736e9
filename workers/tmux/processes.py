"""The processes behind a pane, and making sure they are gone once the pane is.

Closing a pane (kill-pane, kill-server) only hangs up its terminal. A program that
catches SIGHUP to finish cleanly — Hermes does, and while its approval menu waits it can
take a minute or more — lives on with PPID 1, still holding its files (a profile's
state.db), after the command that closed the room returned. So the pane's process group
is remembered before the pane goes (`group_of`), and `wait_gone` waits for it with a
deadline, then ends what is left (SIGTERM, then SIGKILL) and says so.

Members are told apart from a reused pid by their start time in /proc; where there is
no /proc, the group itself is asked (`killpg(pgid, 0)`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
TERM_GRACE = 3.0  # seconds between the SIGTERM and the SIGKILL of what is left
EXIT_TIMEOUT = 10.0  # seconds a closed pane's processes get to exit by themselves


@dataclass(frozen=True)
class Member:
    """One process of a group, as it was when the group was remembered."""

    pid: int
    started: int | None  # start time (clock ticks since boot); None without /proc
    name: str


@dataclass(frozen=True)
class PaneGroup:
    """A pane's process group: whose pane it was (`label`), its id and its members."""

    label: str
    pgid: int
    members: tuple[Member, ...]


def _stat(pid: int) -> tuple[str, list[str]] | None:
    """(command name, the fields after it) of /proc/PID/stat; None when it is gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except (OSError, ValueError):
        return None
    opened, closed = text.find("("), text.rfind(")")
    return text[opened + 1:closed], text[closed + 2:].split()


def _member(pid: int) -> tuple[Member, int] | None:
    """(the process, its process group) unless it is gone or a zombie."""
    stat = _stat(pid)
    if stat is None or len(stat[1]) < 20 or stat[1][0] in ("Z", "X"):
        return None
    name, fields = stat
    return Member(pid, int(fields[19]), name), int(fields[2])


def start_time(pid: int) -> int | None:
    """When process `pid` started (clock ticks since boot), None when it is gone or a
    zombie; 0 while it runs on a system without /proc."""
    if not PROC.is_dir():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            return 0
        return 0
    found = _member(pid)
    return found[0].started if found is not None else None


def group_of(pid: int | None, label: str) -> PaneGroup | None:
    """The process group led by a pane's process `pid` (tmux makes each pane's process
    a session and group leader), with every live member; None when nothing is left."""
    if not pid or pid <= 1 or pid == os.getpgrp():
        return None  # nothing, or this very process's group (a session stopping itself)
    if not PROC.is_dir():
        return PaneGroup(label, pid, (Member(pid, None, "?"),)) if _group_exists(pid) else None
    members = []
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            found = _member(int(entry.name))
            if found is not None and found[1] == pid:
                members.append(found[0])
    return PaneGroup(label, pid, tuple(sorted(members, key=lambda m: m.pid))) \
        if members else None


def _group_exists(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def left(group: PaneGroup) -> tuple[Member, ...]:
    """The members of `group` still running (the same processes, not reused pids)."""
    if not PROC.is_dir():
        return group.members if _group_exists(group.pgid) else ()
    alive = []
    for member in group.members:
        found = _member(member.pid)
        if found is not None and found[0].started == member.started:
            alive.append(member)
    return tuple(alive)


def _signal_group(group: PaneGroup, signum: int) -> None:
    """Signal the group, but only while one of its remembered members still runs: then
    its id cannot have been reused."""
    if left(group):
        with contextlib.suppress(OSError):
            os.killpg(group.pgid, signum)


def wait_gone(groups: Iterable[PaneGroup], timeout: float,
              grace: float = TERM_GRACE) -> list[str]:
    """Wait until every process of `groups` has exited, at most `timeout` seconds; then
    SIGTERM each group with a member left, and SIGKILL those still there after `grace`.
    Returns one line per group that had to be ended (none when all went by themselves)."""
    pending = _wait([group for group in groups if left(group)], timeout)
    names = {group.pgid: ", ".join(f"{m.name} (pid {m.pid})" for m in left(group))
             for group in pending}
    for group in pending:
        _signal_group(group, signal.SIGTERM)
    stubborn = _wait(pending, grace)
    for group in stubborn:
        _signal_group(group, signal.SIGKILL)
    _wait(stubborn, grace)
    return [f"{group.label}: {names[group.pgid]} still ran {timeout:g} s after its pane"
            f" closed; ended its process group"
            f" ({'SIGKILL' if group in stubborn else 'SIGTERM'})" for group in pending]


def _wait(groups: list[PaneGroup], timeout: float) -> list[PaneGroup]:
    """The groups with a member left after waiting up to `timeout` for them to exit."""
    deadline = time.monotonic() + timeout
    pending = [group for group in groups if left(group)]
    while pending and time.monotonic() < deadline:
        time.sleep(0.05)  # processes finishing their exit: waiting with a deadline
        pending = [group for group in pending if left(group)]
    return pending
