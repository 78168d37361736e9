"""Snapshots of every pane on a room's server, taken with one tmux process per tick.

One invocation chains `list-panes -a -F …` with, for each pane the previous tick saw,
`display-message -p MARKER` and `capture-pane -p -t %id`; the markers (a fresh random
nonce per call, which pane output cannot guess) split the combined stdout into panes.

A second call happens only when the pane set changed since the last tick (the first
tick, a pane started or closed outside `RoomServer.launch`/`kill_pane`): tmux stops a
command chain at the first error, and a new pane has no capture yet, so the chain is
re-run with the fresh list. Steady state is exactly one call (`RoomServer.calls`).

tmux 3.3a sometimes misses a SIGCHLD under load: a pane reads dead, but its exit status
stays unknown until another child of the server exits. When a tick sees such a pane,
the next tick's chain ends with `run-shell -b true` (a child tmux forks and reaps, which
reaps the missed one too) — still one tmux process from our side.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, replace
from pathlib import Path

from workers.tmux.processes import EXIT_TIMEOUT, PaneGroup, group_of, wait_gone
from workers.tmux.server import SESSION_OPTION, WAITING_OPTION, RoomServer

TAIL_LINES = 8  # last non-blank lines kept per pane for prompt detection

_FIELDS = ("pane_id", "pane_pid", "pane_dead", "pane_dead_status", "pane_dead_signal",
           "pane_width", "pane_height", "cursor_x", "cursor_y", "alternate_on",
           "pane_in_mode", SESSION_OPTION, WAITING_OPTION, "pane_current_command",
           "pane_title")


@dataclass(frozen=True)
class PaneSnapshot:
    """What one tick saw of one pane. `content_hash` is None when not captured.

    For a dead pane `dead_status` is the exit status, or `dead_signal` the signal that
    killed it; both can be None for a tick or so, while tmux has seen the pty close but
    not yet reaped the process.
    """

    pane_id: str
    pid: int | None
    dead: bool
    dead_status: int | None
    current_command: str
    title: str
    width: int
    height: int
    content_hash: str | None
    session: str = ""  # the `@bullpen_session` pane option ("" for panes bullpen didn't start)
    last_lines: tuple[str, ...] = ()  # last non-blank visible lines, right-stripped
    dead_signal: int | None = None
    screen: tuple[str, ...] = ()  # every visible line, right-stripped (empty: not captured)
    cursor_x: int = 0
    cursor_y: int = 0
    alternate: bool = False  # alternate screen on: a pager, an editor, a full-screen TUI
    in_mode: bool = False  # copy mode: keys go to tmux, not to the program
    # The pane's own process owns its terminal (no child such as sudo, less or vim in
    # the foreground); None when that cannot be read (a dead pane, no /proc).
    in_front: bool | None = None
    key_at: float | None = None  # unix time a human last typed at a client on this pane
    waiting_mark: str = ""  # the `@bullpen_waiting` option: a shell told notes wait


def _int_or_none(text: str) -> int | None:
    return int(text) if text.lstrip("-").isdigit() else None


def parse_row(line: str) -> PaneSnapshot | None:
    parts = line.split("\t", len(_FIELDS) - 1)
    if len(parts) != len(_FIELDS) or not parts[0].startswith("%"):
        return None
    (pane_id, pid, dead, status, signal, width, height, cursor_x, cursor_y, alternate,
     in_mode, session, waiting_mark, command, title) = parts
    is_dead = dead == "1"
    return PaneSnapshot(
        pane_id=pane_id, pid=_int_or_none(pid), dead=is_dead,
        dead_status=_int_or_none(status) if is_dead else None,
        current_command=command, title=title, width=_int_or_none(width) or 0,
        height=_int_or_none(height) or 0, content_hash=None, session=session,
        dead_signal=_int_or_none(signal) if is_dead else None,
        cursor_x=_int_or_none(cursor_x) or 0, cursor_y=_int_or_none(cursor_y) or 0,
        alternate=alternate == "1", in_mode=in_mode == "1", waiting_mark=waiting_mark,
    )


def _stat_fields(pid: int) -> list[str] | None:
    """/proc/PID/stat after the command name (which may hold spaces and parentheses)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rfind(")") + 2:].split()


def owns_terminal(pid: int | None) -> bool | None:
    """True when `pid`'s process group is the foreground group of its terminal."""
    fields = _stat_fields(pid) if pid else None
    if not fields or len(fields) < 6:
        return None
    group, foreground = int(fields[2]), int(fields[5])
    return None if foreground <= 0 else group == foreground


def foreground_group(pid: int | None) -> int | None:
    """The foreground process group of `pid`'s terminal (its leader's pid), or None."""
    fields = _stat_fields(pid) if pid else None
    if not fields or len(fields) < 6:
        return None
    foreground = int(fields[5])
    return foreground if foreground > 0 else None


def content_digest(text: str) -> str:
    """A short stable hash of a pane's visible text."""
    return hashlib.blake2b(text.encode(errors="replace"), digest_size=12).hexdigest()


def tail_of(text: str, count: int = TAIL_LINES) -> tuple[str, ...]:
    """The last `count` non-blank lines of `text`, right-stripped."""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    return tuple(lines[-count:])


def screen_lines(text: str) -> tuple[str, ...]:
    """Every line of a capture, right-stripped, so row N is the screen's row N."""
    return tuple(line.rstrip() for line in text.split("\n"))


ROW_FORMAT = "\t".join(f"#{{{name}}}" for name in _FIELDS)


def _chain(nonce: str, pane_ids: list[str], with_content: bool, reap: bool) -> list[str]:
    fmt = nonce + "P\t" + ROW_FORMAT
    args = ["list-panes", "-a", "-F", fmt,
            ";", "list-clients", "-F", f"{nonce}{CLIENTS_FORMAT}"]
    if reap:
        args += [";", "run-shell", "-b", "true"]
    if with_content:
        for pane_id in pane_ids:
            # No '%' in the message: display-message runs it through strftime.
            args += [";", "display-message", "-p", f"{nonce}C {pane_id[1:]}",
                     ";", "capture-pane", "-p", "-t", pane_id]
    return args


# Each attached client's last input and the pane it is on: a human typing. A control-mode
# client (the coordinator's own, workers.tmux.control) is no human: its commands count.
CLIENTS_FORMAT = "K\t#{client_activity}\t#{pane_id}\t#{client_control_mode}"


def key_at(keys: dict[str, float], line: str) -> None:
    """Add one `CLIENTS_FORMAT` line to `keys` (latest human input by pane id)."""
    _, at, pane_id, control = (line.split("\t") + ["", "", ""])[:4]
    if at.isdigit() and control != "1":
        keys[pane_id] = max(keys.get(pane_id, 0.0), float(at))


def with_screen(row: PaneSnapshot, text: str) -> PaneSnapshot:
    """`row` with the screen `text` captured of it (and who is in front)."""
    return replace(row, content_hash=content_digest(text), last_lines=tail_of(text),
                   screen=screen_lines(text),
                   in_front=None if row.dead else owns_terminal(row.pid))


def _parse(nonce: str, out: str) -> tuple[dict[str, PaneSnapshot], dict[str, str]]:
    rows: dict[str, PaneSnapshot] = {}
    captures: dict[str, list[str]] = {}
    keys: dict[str, float] = {}
    current: list[str] | None = None
    for line in out.split("\n"):
        if line.startswith(nonce + "K\t"):
            key_at(keys, line[len(nonce):])
            current = None
        elif line.startswith(nonce + "P\t"):
            row = parse_row(line[len(nonce) + 2:])
            if row is not None:
                rows[row.pane_id] = row
            current = None
        elif line.startswith(nonce + "C "):
            current = captures.setdefault("%" + line[len(nonce) + 2:].strip(), [])
        elif current is not None:
            current.append(line)
    rows = {pane_id: replace(row, key_at=keys.get(pane_id)) for pane_id, row in rows.items()}
    return rows, {pane_id: "\n".join(lines) for pane_id, lines in captures.items()}


def _one_call(server: RoomServer, pane_ids: list[str],
              with_content: bool) -> tuple[dict[str, PaneSnapshot], dict[str, str]]:
    nonce = "~bp" + os.urandom(8).hex()  # secrets.token_hex, without importing secrets
    proc = server.run(*_chain(nonce, pane_ids, with_content, server.reap_wanted))
    server.reap_wanted = False
    return _parse(nonce, proc.stdout.decode(errors="replace"))


def snapshot_all(server: RoomServer, with_content: bool = True) -> dict[str, PaneSnapshot]:
    """Every pane on `server` by id; one tmux process when the pane set is unchanged.

    Returns {} when the server is not running. With `with_content=False` only the
    pane list is read (always one call) and `content_hash` is None.
    """
    rows, captures = _one_call(server, list(server.pane_ids_hint), with_content)
    if with_content and set(rows) != set(captures):
        rows, captures = _one_call(server, list(rows), with_content)
    server.pane_ids_hint = list(rows)
    server.reap_wanted = any(row.dead and row.dead_status is None and row.dead_signal is None
                             for row in rows.values())
    snapshots: dict[str, PaneSnapshot] = {}
    for pane_id, row in rows.items():
        text = captures.get(pane_id)
        if text is None:
            snapshots[pane_id] = row
            continue
        snapshots[pane_id] = with_screen(row, text)
    return snapshots


def owned(snapshots: dict[str, PaneSnapshot], pane_id: str | None,
          owner: str) -> PaneSnapshot | None:
    """The snapshot of `pane_id` if that pane still belongs to `owner`.

    Pane ids restart at %0 with a new tmux server, so an id remembered from before a
    crash may now name another pane; its `@bullpen_session` option says whose it is.
    """
    snap = snapshots.get(pane_id or "")
    return snap if snap is not None and snap.session == owner else None


def pane_groups(server: RoomServer) -> list[PaneGroup]:
    """The process group of every live pane on `server` (one tmux call), remembered
    before the panes are closed so that `processes.wait_gone` can wait for them."""
    groups = []
    for snap in snapshot_all(server, with_content=False).values():
        group = None if snap.dead else group_of(snap.pid, snap.session or snap.pane_id)
        if group is not None:
            groups.append(group)
    return groups


def close_pane(server: RoomServer, pane_id: str, label: str,
               timeout: float = EXIT_TIMEOUT) -> tuple[bool, list[str]]:
    """Kill a pane and wait until its processes have exited, ending what is left after
    `timeout` (`processes.wait_gone`). (False when there was no such pane, the lines
    naming what had to be ended.)"""
    group = group_of(server.pane_pid(pane_id), label)
    if not server.kill_pane(pane_id):
        return False, []
    return True, wait_gone([group] if group is not None else [], timeout)
