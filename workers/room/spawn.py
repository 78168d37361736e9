"""Starting, stopping and restarting sessions: a worktree, a store record, a tmux pane."""

from __future__ import annotations

import contextlib
import logging
import shlex
import shutil
import signal
from dataclasses import dataclass, replace
from pathlib import Path

from board import machines, sessions, slots, tasks, validate
from board.errors import BadInput, Refused
from board.home import repo_root_of_home
from board.identity import Caller
from board.models import OPERATOR, Session
from board.room import Room, open_operator_room
from board.vocabulary import DesiredState, SessionStatus
from workers.agents import agent_files, exclusive
from workers.agents.adapter import SoleUse
from workers.agents.command_line import is_simple
from workers.agents.kinds import adapter_for
from workers.agents.launch import launch_plan
from workers.room import config, resume_notes
from workers.tmux import layout, processes
from workers.tmux.panes import close_pane
from workers.tmux.server import RoomServer, require_tmux
from worktrees.changes import branch_head
from worktrees.create import create_worktree
from worktrees.errors import WorktreeError
from worktrees.naming import branch_for, check_name, worktree_path
from worktrees.push_guard import install as guard_pushes
from worktrees.remove import check_removable, remove_worktree
from worktrees.repo import main_head

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SpawnRequest:
    name: str
    agent: str
    profile: str | None = None
    task: str | None = None
    base: str | None = None
    setup: str | None = None
    on_commit: str | None = None
    fs_reads: bool = False
    deliver: str | None = None  # `type`: notes may be typed into a generic agent
    base_mode: str | None = None  # `base:` — after (None), main or a ref (the baton)


def on_commit_unknown(room: Room, on_commit: str | None, planned: frozenset[str]) -> bool:
    """Whether `on_commit` names a session neither planned by this `up` nor in the room
    (another machine's session counts: it is in the room)."""
    if not on_commit:
        return False
    return on_commit not in planned and sessions.get(room.conn, on_commit) is None


def check_request(room: Room, request: SpawnRequest, planned: frozenset[str] = frozenset(),
                  repo_checked: bool = False, from_plan: bool = False) -> SoleUse | None:
    """Every refusal that must happen before anything is created (`planned`: sessions
    the same `up` is about to create, which `on_commit` may name). Returns what the
    agent must have to itself (a hermes profile), so `up` can refuse two of its sessions
    wanting the same one."""
    validate.session_name(request.name)
    check_name(request.name)
    for flag, value in (("--profile", request.profile), ("--from", request.base),
                        ("--task", request.task), ("--on-commit", request.on_commit)):
        if value is not None and not value.strip():
            raise BadInput(f"{flag} is empty; give a value or leave it out")
    if request.task is not None:
        validate.text(request.task, "task body")
    if request.on_commit and request.on_commit not in planned:
        validate.session_name(request.on_commit)
    if on_commit_unknown(room, request.on_commit, planned):
        raise BadInput(f"--on-commit names unknown session {request.on_commit!r};"
                       " see bullpen ls")
    if not repo_checked:
        require_tmux()
        main_head(repo_root_of_home(room.home))  # a repository with at least one commit
    existing = sessions.get(room.conn, request.name)
    if existing is not None:
        raise Refused(f"session {request.name!r} already exists ({existing.status});"
                      f" use bullpen restart {request.name}")
    words = agent_words(request.agent)
    if not words:
        raise BadInput("--agent is empty; give the command the session runs")
    if is_simple(request.agent) and shutil.which(words[0], path=layout.tool_path()) is None:
        choose = (f"set sessions.{request.name}.agent (or agent:) in bullpen.yaml" if from_plan
                  else "choose the agent with --agent CMD (or agent: in bullpen.yaml)")
        raise BadInput(f"{words[0]!r} is not installed or not on PATH; install it, or {choose}")
    # The agent's own preparation refuses here too (a hermes profile missing or not set up).
    adapter = adapter_for(request.agent)
    prepared = adapter.plan_spawn(request.name, request.profile, request.agent, room.home)
    if prepared.profile:
        sessions.ensure_profile_free(room.conn, prepared.profile, request.name,
                                     machines.local_name(room.home))
    sole = adapter.sole_use(request.agent, prepared.profile)
    if sole is not None and (found := exclusive.holder(sole.directory)) is not None:
        raise exclusive.refusal(sole.what, found)  # another room's, or one left running
    return sole


def check_requests(room: Room, requests: list[SpawnRequest], planned: frozenset[str]) -> None:
    """`check_request` for each session one `up` starts, and no two of them on what one
    agent process must have to itself (a hermes profile)."""
    wanted: dict[Path, str] = {}
    require_tmux()
    main_head(repo_root_of_home(room.home))  # once for all: a repository with a commit
    for request in requests:
        sole = check_request(room, request, planned, repo_checked=True, from_plan=True)
        other = wanted.setdefault(sole.directory.resolve(), request.name) if sole else None
        if sole is not None and other != request.name:
            raise BadInput(f"bullpen.yaml: sessions {other!r} and {request.name!r} would both"
                           f" run {sole.what}; one process per profile: give one of them"
                           " another profile")


def spawn(home: Path, request: SpawnRequest, *, server: RoomServer | None = None,
          with_dashboard: bool = True, layout_name: str | None = None,
          checked: bool = False, waits: str | None = None) -> Session:
    """Create the session's worktree, register it, and start its agent in a pane (or,
    `waits`: the cap it meets, queue it for a slot under max_running).

    All or nothing: every check runs before anything is made, and a failure after that
    removes what this spawn made. `checked`: the caller already ran `check_request`
    (up checks every session first).
    """
    with open_operator_room(home) as room:
        if not checked:
            check_request(room, request)
        made = Made(repo_root_of_home(home), request.name)
        try:
            return _create(room, request, made, server=server, waits=waits,
                           with_dashboard=with_dashboard, layout_name=layout_name)
        except BaseException:
            made.undo(room, server)
            raise


class Made:
    """What one spawn created, so a failure half-way can take exactly that back."""

    def __init__(self, root: Path, name: str, branch_existed: bool | None = None) -> None:
        self.root, self.name = root, name
        self.branch_existed = branch_head(root, branch_for(name)) is not None \
            if branch_existed is None else branch_existed
        self.worktree_existed = worktree_path(root, name).exists()
        self.registered = False
        self.agent_dir: Path | None = None  # made for its agent (e.g. a hermes profile)
        self.agent_top: Path | None = None  # the highest directory made with it

    def making_dir(self, directory: Path) -> None:
        """Note that `directory` (not there yet) is about to be made, parents and all."""
        top = directory
        while not top.parent.exists():
            top = top.parent
        self.agent_dir, self.agent_top = directory, top

    def undo(self, room: Room, server: RoomServer | None) -> None:
        if self.registered:
            session = sessions.get(room.conn, self.name)
            server = server or layout.server_for(self.root)
            if session and session.pane and layout.owns_pane(server, session.pane, self.name):
                server.kill_pane(session.pane)
            sessions.unregister(room.conn, self.name)
        if not self.worktree_existed and worktree_path(self.root, self.name).exists():
            try:  # a branch of earlier work stays; only a branch made just now goes
                remove_worktree(self.root, self.name, force=not self.branch_existed,
                                delete_branch=not self.branch_existed)
            except WorktreeError as error:
                log.warning("kept %s's half-made worktree: %s", self.name, error)
        if self.agent_dir is not None and self.agent_top is not None:
            self._remove_dir(self.agent_dir, self.agent_top)

    @staticmethod
    def _remove_dir(directory: Path, top: Path) -> None:
        """The directory goes (a profile's secrets are links: only the links); then each parent
        made with it, up to `top`, while it is empty (hermes may have written beside)."""
        shutil.rmtree(directory, ignore_errors=True)
        parent = directory.parent
        while top == parent or top in parent.parents:
            try:
                parent.rmdir()
            except OSError:
                break
            parent = parent.parent


def _create(room: Room, request: SpawnRequest, made: Made, *, server: RoomServer | None,
            with_dashboard: bool, layout_name: str | None, waits: str | None) -> Session:
    prepared = adapter_for(request.agent).plan_spawn(request.name, request.profile,
                                                     request.agent, room.home)
    if prepared.creates is not None:
        made.making_dir(prepared.creates)
    prepared.apply()  # e.g. a dedicated bullpen-<name> hermes profile; nothing shared
    request = replace(request, profile=prepared.profile)
    info = create_worktree(made.root, request.name, request.base)
    sessions.register(room.conn, request.name, agent=request.agent,
                      profile=request.profile, branch=info.branch,
                      worktree=str(info.path), base=info.base_commit, task=request.task,
                      machine=machines.claim(room.conn, room.home))
    made.registered = True
    if request.on_commit or request.fs_reads or request.deliver or request.base_mode:
        sessions.update(room.conn, request.name, on_commit=request.on_commit,
                        fs_reads=int(request.fs_reads), deliver=request.deliver,
                        base_mode=request.base_mode)
    if waits:  # its agent starts when a slot frees (the coordinator: workers/room/slots.py)
        slots.keep_setup(room.conn, request.name, request.setup)
        slots.queue(room.conn, request.name, waits)
    session = launch(room, request.name, server=server, with_dashboard=with_dashboard,
                     setup=request.setup, layout_name=layout_name) if not waits else \
        sessions.require(room.conn, request.name)
    if request.task:
        title, _, body = request.task.partition("\n")
        tasks.add(room.conn, Caller(OPERATOR), validate.one_line(title, 200),
                  body=body or request.task, assignee=request.name)
    return session


def launch(room: Room, name: str, *, server: RoomServer | None = None,
           with_dashboard: bool = True, setup: str | None = None,
           layout_name: str | None = None, fresh: bool = False) -> Session:
    """Start (or start again) the agent of a registered session in a fresh pane, placed
    by `layout_name` (default: bullpen.yaml's layout). Hermes and Claude resume their
    last conversation unless `fresh`.

    Each launch gets a new token, so an old process of this session loses its identity.
    """
    session = sessions.require(room.conn, name)
    root = repo_root_of_home(room.home)
    plan_file = config.load(root)  # its deny: patterns are read again at every launch
    layout_name = layout_name or plan_file.layout
    server = server or layout.server_for(root)
    if session.pane and layout.owns_pane(server, session.pane, name):
        _close(server, session.pane, name)  # its old process gone before a new one starts
    if session.profile:
        sessions.ensure_profile_free(room.conn, session.profile, name, session.machine)
    worktree = Path(session.worktree or worktree_path(root, name))
    if not worktree.exists():  # removed, or lost with a reboot: the branch still holds the work
        worktree = create_worktree(root, name).path
    elif (worktree / ".git").is_file():  # made before the push guard existed: it gets it now
        guard_pushes(root, [worktree])
    token = sessions.new_launch_token(room.conn, name)
    if session.hook_status is not None:
        sessions.set_hook_status(room.conn, name, None)  # a new process reports afresh
    plan = launch_plan(session, token, room.home, setup=setup, fresh=fresh,
                       deny=plan_file.deny)
    dashboard = layout.ensure_room_window(server, root, room.home, with_dashboard, layout_name)
    side_by_side = layout.beside_dashboard(server, layout_name, dashboard)
    sole = adapter_for(session.agent, session.deliver).sole_use(session.agent or "",
                                                                session.profile)
    orphan = orphan_of(room.home, session)
    for line in processes.wait_gone([orphan] if orphan else [], processes.EXIT_TIMEOUT):
        log.warning("%s", line)
    # Machine-wide: decided under the claim's lock, with the pane's process recorded.
    with (exclusive.claim(sole.directory, sole.what, room.home, name) if sole is not None
          else contextlib.nullcontext(lambda pid: None)) as hold:
        pane_id = server.launch(dashboard if side_by_side else layout.ROOM_SESSION,
                                plan.command, worktree, plan.env, title=name,
                                new_window=not side_by_side,
                                then=layout.arrange_args(layout_name, dashboard)
                                if side_by_side else ())
        pid = server.pane_pid(pane_id) if sole is not None else None
        if pid is not None:
            hold(pid)
    # Its agent's version is asked by the coordinator (workers/coordinator/versions.py),
    # off the launch path.
    sessions.update(room.conn, name, pane_id=pane_id, desired=DesiredState.RUNNING,
                    worktree=str(worktree), agent_version=None)
    sessions.set_status(room.conn, name, SessionStatus.STARTING)
    if not fresh:  # what a hook handed that the resumed conversation lost, at its next turn
        resume_notes.hand_again(room.conn, session, agent_files.read_value(
            room.home, name, agent_files.CONVERSATION))
    return sessions.require(room.conn, name)


def orphan_of(home: Path, session: Session) -> processes.PaneGroup | None:
    """The process group of the session's own agent still holding what it must have to
    itself (a hermes profile), found through the holder it recorded: after its tmux server
    died it has no pane, yet a launch must not meet it and `down` must end it."""
    sole = adapter_for(session.agent, session.deliver).sole_use(
        session.agent, session.profile) if session.agent else None
    found = exclusive.holder(sole.directory) if sole is not None else None
    if found is None or (found.room, found.session) != (str(home), session.name):
        return None
    return processes.group_of(found.pid, session.name)


def stop(home: Path, name: str, *, remove: bool = False, force: bool = False,
         server: RoomServer | None = None) -> list[str]:
    """Stop a session's agent; with `remove`, also its worktree (refused if work would be
    lost, unless `force`). Returns what was done, one line each."""
    with open_operator_room(home) as room:
        session = sessions.require(room.conn, name)
        root = repo_root_of_home(home)
        if remove and not force:
            check_removable(root, name)  # refuse before stopping anything
        server = server or layout.server_for(root)
        done = []
        # Recorded first: a session stopping itself runs in the pane about to go.
        sessions.update(room.conn, name, desired=DesiredState.STOPPED, pane_id=None)
        sessions.set_status(room.conn, name, SessionStatus.STOPPED)
        if session.pane and layout.owns_pane(server, session.pane, name):
            closed, ended = _close(server, session.pane, name)
            done += [f"stopped {name}"] * closed + ended
        if remove:
            removed = remove_worktree(root, name, force=force)
            sessions.update(room.conn, name, worktree=None)  # on purpose: not a lost one
            done.append(f"removed worktree {removed.path}"
                        + (f" and branch {removed.branch}" if removed.branch_deleted else ""))
        return done or [f"{name} was not running"]


def _close(server: RoomServer, pane_id: str, name: str) -> tuple[bool, list[str]]:
    """Kill the pane and wait for its processes (an agent finishing after its hangup)."""
    closed, ended = close_pane(server, pane_id, name)
    for line in ended:
        log.warning("%s", line)
    return closed, ended


def restart(home: Path, name: str, *, server: RoomServer | None = None,
            with_dashboard: bool = True, fresh: bool = False) -> Session:
    with open_operator_room(home) as room:
        session = sessions.require(room.conn, name)
        if session.agent is None and session.worktree is None:
            raise Refused(f"{name} joined with bullpen register and runs outside bullpen;"
                          " there is no agent to restart")
        return launch(room, name, server=server, with_dashboard=with_dashboard, fresh=fresh)


def outlive_own_pane() -> None:
    """A session acting on itself runs in the pane that is about to close: ignore the
    hangup so the command finishes (the new pane, the store record, the audit)."""
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


def agent_words(agent: str) -> list[str]:
    try:
        return shlex.split(agent)
    except ValueError as error:
        raise BadInput(f"--agent {agent!r} is not a valid command: {error}") from None
