"""Bringing a room up and down, and reporting its sessions.

`up` is idempotent: it starts what is missing (tmux server, dashboard, coordinator,
configured sessions, panes of sessions that were running) and never a second copy of a
live session. `down` stops everything and keeps every worktree unless asked.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from board import chains, machines, marks, sessions
from board import plan as board_plan
from board.errors import BadInput, BullpenError
from board.models import Session
from board.room import Room, open_operator_room
from board.vocabulary import DesiredState, IdentityVariable, SessionStatus
from workers.coordinator import loop as coordinator
from workers.coordinator import process
from workers.coordinator.lock import check_lock_path, running_pid
from workers.coordinator.presence import Presence
from workers.coordinator.slots import admitting
from workers.room import budget_config, doctor_notify, policy_check, slots
from workers.room import config as config_file
from workers.room.placement import place
from workers.room.spawn import (
    check_requests,
    launch,
    on_commit_unknown,
    orphan_of,
    spawn,
)
from workers.room.spawn_many import Where, plan_request, spawn_many
from workers.tmux import layout, processes
from workers.tmux.panes import owned, pane_groups, snapshot_all
from workers.tmux.server import RoomServer, require_tmux
from worktrees.errors import WorktreeError
from worktrees.remove import remove_worktree
from worktrees.repo import main_head

COORDINATOR_START_TIMEOUT = 15.0
# How long `down` waits for the coordinator to let go of its lock after its tmux server
# went (it finishes the event it is on and stops its hook server), before a SIGTERM.
COORDINATOR_STOP_TIMEOUT = 10.0
ORPHAN_EXIT_TIMEOUT = 3.0  # `up` after the tmux server died: its coordinator is on its way out
# How long `down` waits for the panes' processes to exit after their terminals hung up
# (Hermes finishes its turn on SIGHUP) before it ends what is left of each pane's group.
AGENT_EXIT_TIMEOUT = processes.EXIT_TIMEOUT


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)

    def say(self, line: str) -> None:
        self.lines.append(line)


def up(home: Path, *, with_dashboard: bool = True, server: RoomServer | None = None,
       fresh: bool = False, progress: Callable[[str], None] = lambda line: None) -> Report:
    """Start or repair the room for the repository owning `home`; agents started again
    resume their conversations unless `fresh`; `progress` hears how far a long start is."""
    require_tmux()
    check_lock_path(home)  # a directory or symlink in the lock's place: say so, start nothing
    root = home.parent
    plan = config_file.load(root)  # a bad plan stops everything before anything starts
    main_head(root)
    report = Report([*policy_check.release_gaps(plan), *policy_check.warnings(plan),
                     *policy_check.deliver_warnings(plan), *doctor_notify.up_warnings(home)])
    server = server or layout.server_for(root)
    with open_operator_room(home) as room:
        here = Presence(home, room.conn)  # refused if another machine holds this one's name
        placed = place(plan, here.machine, machines.owner_machine(room.conn))
        new = [p for p in placed.here if sessions.get(room.conn, p.name) is None]
        planned = frozenset(p.name for p in plan.sessions)
        for item in new:  # the plan's own errors first, then each session's
            _check_on_commit(room, item, planned)
        check_requests(room, [plan_request(item) for item in new], planned)
        marks.set_mark(room.conn, here.push_mark(), plan.push or "")
        marks.set_mark(room.conn, marks.down_key(here.machine), "")
        chains.set_limits(room.conn, plan.loop_guard)
        if not server.is_alive():  # a coordinator left from a killed server is leaving
            _wait_for_coordinator_exit(home, ORPHAN_EXIT_TIMEOUT, terminate=False)
        layout.ensure_room_window(server, root, home, with_dashboard, plan.layout)
        # The coordinator starts once the new sessions' worktrees are checked out: started
        # before, its watch of the main checkout (which holds .bullpen/worktrees) followed
        # every file the checkouts wrote, ~6 s of CPU for 200 sessions on up's two cores.
        boot = functools.cache(lambda: start_coordinator(server, home))  # once
        mine = here.mine(sessions.all_sessions(room.conn))  # another machine's: its own up
        with slots.gate(home, room.conn, server, plan, new, mine, with_dashboard,
                        report.say) as gate:
            ordered = gate.ordered(new)  # past max_running: made, waiting for a slot
            spawn_many(home, [plan_request(i) for i in ordered if not gate.waits(i.name)],
                       Where(server, with_dashboard, plan.layout, plan.deny, progress, boot))
            for item in ordered:
                if waits := gate.waits(item.name):
                    spawn(home, plan_request(item), server=server, with_dashboard=with_dashboard,
                          layout_name=plan.layout, checked=True, waits=waits)
                report.say(f"{item.name} waits for a slot ({waits})" if waits else
                           f"started {item.name} in .bullpen/worktrees/{item.name}")
            for item, machine in placed.elsewhere:
                if sessions.get(room.conn, item.name) is None:
                    report.say(f"{item.name} runs on machine {machine}: bullpen up there")
            _create_plan_tasks(room, plan)
            budget_config.store(room.conn, plan.budget,
                                {p.name: p.budget for p in plan.sessions}, plan.prices)
            panes = snapshot_all(server, with_content=False)
            unplanned = board_plan.remember_planned(room.conn, planned) - planned
            left_alone = []
            for session in mine:
                if session.desired != DesiredState.RUNNING:
                    continue
                if owned(panes, session.pane, session.name) is not None:
                    report.say(f"{session.name} is already running")
                elif gate.queued(session.name):  # its pane was gone; no slot is free
                    continue
                elif session.name in unplanned:  # deleted from bullpen.yaml since
                    left_alone.append(session.name)
                else:
                    launch(room, session.name, server=server, with_dashboard=with_dashboard,
                           layout_name=plan.layout, fresh=fresh)
                    report.say(f"restarted {session.name} (its pane was gone)")
            if left_alone:
                report.say(_left_alone(left_alone))
            for name in gate.to_start:  # waiting since an earlier up; a slot is free now
                launch(room, name, server=server, with_dashboard=with_dashboard,
                       layout_name=plan.layout, setup=gate.setup(name))
                report.say(f"started {name} (a slot was free)")
        started = boot()  # the first call starts it (nothing new to check out: now)
    wait_for_coordinator(home)
    if started:
        report.say("started the coordinator")
    return report


def _left_alone(names: list[str]) -> str:
    listed = ", ".join(names)
    return (f"left {listed} alone: no longer in bullpen.yaml (bullpen restart NAME starts"
            " one again, bullpen rm NAME removes it)")


def _check_on_commit(room: Room, item: config_file.SessionPlan,
                     planned: frozenset[str]) -> None:
    """`on_commit` may name a session of another machine of the room, not a stranger."""
    if on_commit_unknown(room, item.on_commit, planned):
        raise BadInput(f"{item.on_commit_at}: unknown session {item.on_commit!r}: not in"
                       " this plan nor in the room (start it on its machine first; see"
                       " bullpen ls)")


def _create_plan_tasks(room: Room, plan: config_file.Config) -> None:
    """One task per planned session (once, however often `up` runs), linked by `after`."""
    needed = {p.name for p in plan.sessions if p.task} | {
        parent for p in plan.sessions for parent in p.after}
    board_plan.create_plan_tasks(room.conn, [
        board_plan.PlannedTask(item.name, item.task or f"{item.name}'s part of the plan",
                               tuple(item.after))
        for item in slots.plan_order(plan) if item.name in needed])


def ensure_coordinator(server: RoomServer, home: Path) -> bool:
    """Start the coordinator unless one runs and wait until it holds its lock; True if
    it had to be started."""
    started = start_coordinator(server, home)
    wait_for_coordinator(home)
    return started


def start_coordinator(server: RoomServer, home: Path) -> bool:
    """Start the coordinator in its hidden tmux session unless one runs; don't wait."""
    if coordinator.is_running(home):
        return False
    process.failed_path(home).unlink(missing_ok=True)  # a failure written now is this start's
    command = layout.bullpen_command("coordinator")
    env = {IdentityVariable.HOME: str(home), "PATH": layout.tool_path()}
    root = home.parent
    if server.has_session(layout.COORDINATOR_SESSION):
        pane = server.check("list-panes", "-t", f"={layout.COORDINATOR_SESSION}:",
                            "-F", "#{pane_id}").split()[0]
        server.respawn_pane(pane, command, root, env)
    else:
        flags = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
        server.check("new-session", "-d", "-s", layout.COORDINATOR_SESSION, "-c", str(root),
                     *flags, command)
    return True


def wait_for_coordinator(home: Path) -> None:
    deadline = time.monotonic() + COORDINATOR_START_TIMEOUT
    while not coordinator.is_running(home):
        failure = process.start_failure(home)
        if failure:
            raise BullpenError(f"the coordinator did not start: {failure}")
        if time.monotonic() > deadline:
            raise BullpenError("the coordinator did not start; see"
                               f" {home / 'logs' / 'coordinator.log'}")
        time.sleep(0.02)  # a process start-up: waiting for its lock, with a deadline


def _wait_for_coordinator_exit(home: Path, timeout: float = COORDINATOR_STOP_TIMEOUT,
                               terminate: bool = True) -> bool:
    """Wait until no coordinator holds the lock (an `up` right after must be able to
    start one); SIGTERM one that outlives `timeout` if `terminate`. False if it runs."""
    deadline = time.monotonic() + timeout
    while coordinator.is_running(home):
        if time.monotonic() > deadline:
            pid = running_pid(home)
            if not terminate or pid is None:
                return False
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
            terminate, deadline = False, time.monotonic() + timeout / 2
        time.sleep(0.02)  # a process finishing its tick: waiting for its lock, with a deadline
    return True


def down(home: Path, *, remove_worktrees: bool = False, force: bool = False,
         server: RoomServer | None = None, timeout: float = AGENT_EXIT_TIMEOUT) -> Report:
    """Stop sessions, coordinator and the room's tmux server; keep worktrees unless asked.

    Returns once every pane's processes have exited: those still running `timeout`
    seconds after tmux hung up their terminals are ended (and named in the report). The
    store is only told: whatever its state (damaged, deleted), tmux, the coordinator and
    the agents are stopped, and the report says what could not be recorded."""
    root = home.parent
    server = server or layout.server_for(root)
    report = Report()
    with admitting(home):  # no slot is given away while the panes are recorded and ended
        try:
            here = _record_stopped(home, report)
        except (BullpenError, sqlite3.Error, OSError) as error:
            here = None
            report.say(f"could not record the sessions as stopped ({_one_line(error)});"
                       " run bullpen doctor")
        # Agents left without a pane (their tmux server died) are waited for and ended too.
        groups = [group for session in here or () if (group := orphan_of(home, session))]
        if server.is_alive():
            groups += pane_groups(server)
            server.kill_server()
            report.say("stopped the coordinator and the room's tmux server")
        else:
            report.say("the room's tmux server was not running")
    for line in processes.wait_gone({g.pgid: g for g in groups}.values(), timeout):
        report.say(line)
    if not _wait_for_coordinator_exit(home):
        report.say("the coordinator is still stopping; bullpen up waits for it")
    if remove_worktrees and here is None:
        report.say("kept every worktree: without the store bullpen cannot tell whose is whose")
    elif remove_worktrees and here is not None:
        removed = [session.name for session in here if _remove_one(root, session, force, report)]
        with open_operator_room(home) as room:  # removed on purpose: not a fault for doctor
            for name in removed:
                sessions.update(room.conn, name, worktree=None)
    return report


def _record_stopped(home: Path, report: Report) -> list[Session]:
    """Mark this machine's sessions stopped (other machines' keep running); returns them."""
    with open_operator_room(home) as room:
        here = Presence(home, room.conn).mine(sessions.all_sessions(room.conn))
        for session in here:
            if session.pane and session.status != SessionStatus.STOPPED:
                report.say(f"stopped {session.name}")
            sessions.set_status(room.conn, session.name, SessionStatus.STOPPED)
            sessions.update(room.conn, session.name, pane_id=None)
        marks.set_mark(room.conn, marks.down_key(machines.local_name(home)), "1")
    return here


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def _remove_one(root: Path, session: Session, force: bool, report: Report) -> bool:
    if not session.worktree or not Path(session.worktree).exists():
        report.say(f"{session.name}: no worktree")
        return False
    try:
        removed = remove_worktree(root, session.name, force=force)
    except WorktreeError as error:  # unsafe without --force, or git refused: keep it
        report.say(f"kept {session.name}'s worktree: {error}")
        return False
    report.say(f"removed {removed.path}")
    return True
