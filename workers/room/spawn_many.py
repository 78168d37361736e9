"""Starting many sessions at once (`bullpen up` of a plan): what `spawn` does for each,
with the shared work done once.

For 200 sessions `spawn` one by one started ~2,600 processes (ten git and three tmux
per session) and made ~1,600 store commits. Here the worktrees are made together
(`worktrees.create_many`: one transaction of branches, checkouts two at a time), every
session is registered in one store transaction (already `desired: running`, so a
second `up` after a crash starts what has no pane yet), and the panes are started
`CHUNK` at a time, each chunk recorded in one transaction. What a user sees is what
`spawn` makes; `progress` says how far it got (checkouts, then panes).

A session whose agent must have something to itself (a hermes profile, made for it and
claimed machine-wide) is spawned on its own, in its place in the plan's order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from board import machines, sessions, tasks, validate
from board.db import write
from board.home import repo_root_of_home
from board.identity import Caller
from board.models import OPERATOR
from board.room import Room, open_operator_room
from board.vocabulary import DesiredState, SessionStatus
from workers.agents.kinds import adapter_for
from workers.agents.launch import launch_plan
from workers.room import config
from workers.room.spawn import Made, SpawnRequest, spawn
from workers.tmux import layout
from workers.tmux.server import NewPane, RoomServer
from worktrees.create_many import create_worktrees
from worktrees.gitcmd import run_git
from worktrees.naming import branch_for

CHUNK = 25  # panes per pair of tmux processes


@dataclass(frozen=True)
class Where:
    """Where `spawn_many` starts its sessions, and who hears how far it got."""

    server: RoomServer
    with_dashboard: bool
    layout_name: str
    deny: tuple[str, ...] = ()  # the room's deny: patterns, as each launch reads them
    progress: Callable[[str], None] = lambda line: None  # "checking out 37/200", ...
    # Called once, when the first batch's worktrees are checked out and its sessions
    # registered, before their panes start (up starts the coordinator then).
    worktrees_made: Callable[[], object] = lambda: None


def spawn_many(home: Path, requests: Sequence[SpawnRequest], where: Where) -> None:
    """Start every (checked) request, in order."""
    batch: list[SpawnRequest] = []
    done = 0

    def flush() -> None:
        nonlocal done
        if batch:
            _start_together(home, list(batch), where, done, len(requests))
            done += len(batch)
            batch.clear()

    for request in requests:
        if _alone(request, home):
            flush()
            spawn(home, request, server=where.server, with_dashboard=where.with_dashboard,
                  layout_name=where.layout_name, checked=True)
            done += 1
            where.progress(f"starting {done}/{len(requests)}")
        else:
            batch.append(request)
    flush()


def plan_request(item: config.SessionPlan) -> SpawnRequest:
    """What `spawn` is asked for one session of bullpen.yaml."""
    return SpawnRequest(name=item.name, agent=item.agent, profile=item.profile,
                        base=item.base, setup=item.setup, on_commit=item.on_commit,
                        fs_reads=item.fs_reads, deliver=item.deliver,
                        base_mode=item.base_mode)


def _alone(request: SpawnRequest, home: Path) -> bool:
    adapter = adapter_for(request.agent)
    prepared = adapter.plan_spawn(request.name, request.profile, request.agent, home)
    return prepared.creates is not None or adapter.sole_use(request.agent,
                                                            prepared.profile) is not None


def _start_together(home: Path, requests: list[SpawnRequest], where: Where, done: int,
                    total: int) -> None:
    root = repo_root_of_home(home)
    heads = run_git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads/bullpen/")
    existing = set(heads.stdout.split())
    with open_operator_room(home) as room:
        made = {r.name: Made(root, r.name, branch_existed=branch_for(r.name) in existing)
                for r in requests}
        launched: set[str] = set()
        try:
            _make(room, root, requests, made, where, launched,
                  lambda verb, k: where.progress(f"{verb} {done + k}/{total}"))
        except BaseException:
            for name, item in made.items():
                if name not in launched:
                    item.undo(room, where.server)
            raise


def _make(room: Room, root: Path, requests: list[SpawnRequest], made: dict[str, Made],
          where: Where, launched: set[str], progress: Callable[[str, int], None]) -> None:
    for index, request in enumerate(requests):
        prepared = adapter_for(request.agent).plan_spawn(request.name, request.profile,
                                                         request.agent, room.home)
        prepared.apply()
        requests[index] = replace(request, profile=prepared.profile)
    infos = create_worktrees(root, [(r.name, r.base) for r in requests],
                             lambda k: progress("checking out", k))
    tokens: dict[str, str] = {}
    with write(room.conn):  # one transaction: every session, already meant to run
        machine = machines.claim(room.conn, room.home)
        for request, info in zip(requests, infos, strict=True):
            tokens[request.name] = sessions.register(
                room.conn, request.name, agent=request.agent, profile=request.profile,
                branch=info.branch, worktree=str(info.path), base=info.base_commit,
                task=request.task, machine=machine)
            made[request.name].registered = True
            sessions.update(room.conn, request.name, on_commit=request.on_commit,
                            fs_reads=int(request.fs_reads), deliver=request.deliver,
                            base_mode=request.base_mode, desired=DesiredState.RUNNING)
    where.worktrees_made()
    server = where.server
    dashboard = layout.ensure_room_window(server, root, room.home, where.with_dashboard,
                                          where.layout_name)
    side_by_side = layout.beside_dashboard(server, where.layout_name, dashboard)
    for start in range(0, len(requests), CHUNK):
        chunk = list(zip(requests, infos, strict=True))[start:start + CHUNK]
        panes = []
        for request, info in chunk:
            plan = launch_plan(sessions.require(room.conn, request.name),
                               tokens[request.name], room.home, setup=request.setup,
                               deny=where.deny)
            panes.append(NewPane(plan.command, info.path, plan.env, request.name))
        ids = server.launch_many(dashboard if side_by_side else layout.ROOM_SESSION, panes,
                                 new_window=not side_by_side,
                                 then=layout.arrange_args(where.layout_name, dashboard)
                                 if side_by_side else ())
        with write(room.conn):
            for (request, _), pane_id in zip(chunk, ids, strict=True):
                sessions.update(room.conn, request.name, pane_id=pane_id)
                sessions.set_status(room.conn, request.name, SessionStatus.STARTING)
                launched.add(request.name)
        progress("starting", start + len(chunk))
    for request in requests:
        if request.task:
            title, _, body = request.task.partition("\n")
            tasks.add(room.conn, Caller(OPERATOR), validate.one_line(title, 200),
                      body=body or request.task, assignee=request.name)
