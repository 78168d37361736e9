"""`bullpen ls`: every session with its live status, uncommitted files and code flow.

Apart from lifecycle (up and down), whose imports (the plan's YAML, the coordinator,
spawning) `ls` needs none of: listing is what people and agents type most (issue 34).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path

from board import machines, sessions
from board.models import Session
from board.room import open_operator_room
from board.vocabulary import DesiredState, SessionStatus
from workers.coordinator.presence import Presence
from workers.room.code_view import CodeFlow, branch_heads, code_flows
from workers.tmux import layout
from workers.tmux.panes import owned, snapshot_all
from workers.tmux.server import RoomServer
from worktrees.errors import WorktreeError
from worktrees.status import changed_files

REAP_WAIT = 0.5  # seconds `ls` waits for tmux to record an exit status it missed


@dataclass(frozen=True)
class SessionRow:
    name: str
    status: str
    exit_code: int | None
    branch: str | None
    worktree: str | None
    pane: str | None
    agent: str | None
    changed_files: tuple[str, ...]
    machine: str | None = None  # where it runs; None in a room on one machine
    reason: str | None = None  # why that status: the question asked, what is in front…
    code: CodeFlow | None = None  # ahead/behind the base, conflicts, landed (code_view)
    agent_version: str | None = None  # what its agent said of itself at launch
    removed: bool = False  # its worktree was removed (stop --remove-worktree, down, by hand)
    # (a session made by register has neither branch nor worktree: nothing was removed)

    def to_json(self) -> dict:
        return {"name": self.name, "status": self.status, "reason": self.reason,
                "exit_code": self.exit_code,
                "branch": self.branch, "worktree": self.worktree, "pane": self.pane,
                "agent": self.agent, "agent_version": self.agent_version,
                "changed_files": list(self.changed_files),
                "machine": self.machine, **(self.code or CodeFlow()).to_json()}


def list_sessions(home: Path, server: RoomServer | None = None) -> list[SessionRow]:
    """Every session with its live status (one tmux call) and its uncommitted files."""
    root = home.parent
    server = server or layout.server_for(root)
    panes = snapshot_all(server, with_content=False)
    deadline = time.monotonic() + REAP_WAIT
    while server.reap_wanted and time.monotonic() < deadline:
        # tmux has not recorded a dead pane's exit status yet; the next snapshot nudges it
        time.sleep(0.02)
        panes = snapshot_all(server, with_content=False)
    rows = []
    try:
        heads: dict[str, str] | None = branch_heads(root)
    except WorktreeError:  # no git repository here (a room kept elsewhere): no code flow
        heads = None
    with open_operator_room(home) as room:
        here = Presence(home, room.conn)
        last_beats = machines.beats(room.conn) if here.shared else {}
        known = sessions.all_sessions(room.conn)
        mine = {s.name for s in here.mine(known)}
        for session in known:
            if session.name not in mine:  # its own machine's coordinator reports on it
                rows.append(_remote_row(session, here.machine, last_beats))
                continue
            status, code = session.status, session.exit_code
            reason = session.status_reason
            snap = owned(panes, session.pane, session.name)
            if session.desired == DesiredState.RUNNING and snap is None:
                status, code, reason = SessionStatus.STOPPED, None, None
            elif snap is not None and snap.dead:
                status, code, reason = SessionStatus.EXITED, snap.dead_status, None
            on_disk = bool(session.worktree) and Path(session.worktree or "").is_dir()
            # A worktree or branch that is gone is not shown as if it were there.
            branch = session.branch if heads is None or session.branch in heads else None
            rows.append(SessionRow(session.name, status, code, branch,
                                   session.worktree if on_disk else None,
                                   snap.pane_id if snap else None,
                                   session.agent, (), session.machine, reason,
                                   agent_version=session.agent_version,
                                   removed=not on_disk and bool(session.branch
                                                                or session.worktree)))
        flows = code_flows(room.conn, root, known, heads) if heads is not None else {}
    # One git status per local worktree, run together (ahead/behind: code_flows).
    checked = [row for row in rows if row.name in mine and row.worktree]
    changed = dict(zip((row.name for row in checked),
                       changed_files([row.worktree for row in checked if row.worktree]),
                       strict=True))
    return [replace(row, changed_files=changed.get(row.name, ()), code=flows.get(row.name))
            for row in rows]


def _remote_row(session: Session, here: str, last_beats: dict) -> SessionRow:
    """A session on another machine: the status its coordinator stored (or unreachable),
    no pane or worktree files from here."""
    status = machines.shown_status(session.status, session.machine, here, last_beats)
    code = session.exit_code if status == SessionStatus.EXITED else None
    return SessionRow(session.name, status, code, session.branch, session.worktree, None,
                      session.agent, (), session.machine, agent_version=session.agent_version)

