"""The room façade: every session verb the CLI, the dashboard and the demo call.

As Supervisor's `rpcinterface` is the one API its CLI and web UI share, `RoomControl`
is the one way in to the room (up, down, ls, spawn, stop, rm, restart, attach, and the
dashboard's focus, zoom and capture), so two surfaces cannot drift. It holds the one
pane-ownership rule: a remembered pane id counts only while `layout.owns_pane` says the
pane still belongs to its session (ids restart at %0 with a new tmux server).

It also holds the one authority rule (board.authority, default deny): only the
operator spawns, stops, restarts or removes other sessions and brings the room down; a
session may stop or restart itself; a plan grants more with `may:`. The caller is the
identity in the environment (BULLPEN_SESSION with its BULLPEN_TOKEN), else the operator.
Every verb that needs a power is audited, refusals included. Every method blocks on tmux
or git: the dashboard calls them from thread workers.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from board import authority, machines, sessions
from board.authority import Power
from board.db import is_postgres
from board.errors import BadInput, BullpenError
from board.identity import Caller
from board.models import Session
from board.room import Room, open_operator_room, open_room
from board.vocabulary import IdentityVariable, RoomLayout
from workers.room import listing, worktree_view
from workers.room.code_view import CodeFlow, code_flows
from workers.tmux import layout, nesting
from workers.tmux.processes import EXIT_TIMEOUT
from workers.tmux.server import RoomServer

# Verbs import the plan's YAML, spawning and landing when called: `ls` pays for none
# (tests/integration/test_command_imports.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from workers.room.answers import Answered, Question
    from workers.room.land import LandingPreview
    from workers.room.land_rules import RuleChange
    from workers.room.lifecycle import Report
    from workers.room.listing import SessionRow

NOT_RUNNING = ("not running — notes wait and alerts stop; bullpen up (or the dashboard)"
               " starts it")


class RoomControl:
    """The room of the repository owning `home` (its `.bullpen` directory)."""

    def __init__(self, home: Path, server: RoomServer | None = None,
                 caller: Caller | None = None) -> None:
        self.home = home
        self.root = home.parent
        self.server = server or layout.server_for(self.root)
        self._caller = caller

    @property
    def caller(self) -> Caller:
        """Who is asking (resolved once; a wrong token is refused here)."""
        if self._caller is None:
            env = {**os.environ, IdentityVariable.HOME: str(self.home)}
            with open_room(env=env) as room:
                self._caller = room.caller
        return self._caller

    def _operator_room(self) -> Room:
        return open_operator_room(self.home)

    @contextmanager
    def _privileged(self, power: Power, target: str | None = None, *,
                    force: bool = False) -> Iterator[None]:
        """Refuse (audited) unless the caller holds `power`; audit how the verb ended."""
        from workers.room import spawn
        caller = self.caller
        with self._operator_room() as room:
            if is_postgres(room.conn):  # a room across machines: this machine's own only
                if taken := machines.taken_elsewhere(room.conn, self.home):
                    authority.refuse_taken_name(room.conn, caller, power, target, taken,
                                                force=force)
                authority.refuse_elsewhere(room.conn, caller, power, target,
                                           machines.local_name(self.home))
        with self._operator_room() as room, \
                authority.privileged(room.conn, caller, power, target, force=force):
            if target is not None and target == caller.name:
                spawn.outlive_own_pane()  # acting on itself: its own pane may close
            yield

    # -- the room ------------------------------------------------------------------------

    def up(self, *, with_dashboard: bool = True, fresh: bool = False,
           progress: Callable[[str], None] = lambda line: None) -> Report:
        """Start or repair the room (idempotent: never a second copy of a live session)."""
        from workers.room import lifecycle
        caller = self.caller
        if not caller.is_operator:  # up makes and restarts sessions: a granted power
            with self._operator_room() as room:
                authority.check(room.conn, caller, Power.SPAWN)
        report = lifecycle.up(self.home, with_dashboard=with_dashboard, server=self.server,
                              fresh=fresh, progress=progress)
        if caller.is_operator:  # grants come from the operator's plan, run by the operator
            self._apply_grants(report)
        return report

    def _apply_grants(self, report: Report) -> None:
        from workers.room import config
        plan = config.load(self.root)
        with self._operator_room() as room:
            for item in plan.sessions:
                if sessions.get(room.conn, item.name) is None:
                    continue
                if authority.grant(room.conn, self.caller, item.name, item.may):
                    report.say(f"{item.name} may: {', '.join(item.may) or 'nothing more'}")

    def down(self, *, remove_worktrees: bool = False, force: bool = False,
             timeout: float = EXIT_TIMEOUT) -> Report:
        """Stop every session, the coordinator and tmux; worktrees stay unless asked.
        Agents get `timeout` seconds to exit before what is left of their panes is ended."""
        from workers.room import lifecycle
        if force and not remove_worktrees:
            raise BadInput("--force only applies with --remove-worktrees")
        if not 0 <= timeout <= 3600:
            raise BadInput(f"--timeout {timeout:g} is out of range; give 0 to 3600 seconds")
        try:
            with self._operator_room():
                pass
        except (BullpenError, sqlite3.Error):
            if os.environ.get(IdentityVariable.SESSION) or not self.home.is_dir():
                raise  # a session's right to stop the room is in the store it cannot read
            # The operator: a damaged or deleted store must never keep the room running.
            return lifecycle.down(self.home, remove_worktrees=remove_worktrees, force=force,
                                  server=self.server, timeout=timeout)
        with self._privileged(Power.DOWN, force=force):
            return lifecycle.down(self.home, remove_worktrees=remove_worktrees, force=force,
                                  server=self.server, timeout=timeout)

    def ls(self) -> list[SessionRow]:
        """Every session with its live status and uncommitted files."""
        return listing.list_sessions(self.home, server=self.server)

    def attach_command(self, name: str | None = None,
                       size: tuple[int, int] | None = None) -> list[str]:
        """The argv that puts the user's terminal on the room, with `name`'s pane focused;
        with the terminal's `size` (columns, rows), the room is laid out to fit it."""
        from workers.room import config
        if not self.server.has_session(layout.ROOM_SESSION):
            raise BadInput("the room is not running; start it with bullpen up")
        try:  # a dashboard closed with q (or killed) comes back in its place
            where = config.load(self.home.parent).layout
        except BadInput:  # a plan broken since up: the room still gets its dashboard
            where = RoomLayout.SIDE_BY_SIDE
        layout.ensure_room_window(self.server, self.home.parent, self.home,
                                  layout_name=where)
        fitted = layout.fit_to_terminal(self.server, where, size) if size else None
        nested = nesting.fit_prefix(self.server, os.environ)  # inside the user's own tmux
        told = "; ".join(line for line in (nested, fitted) if line)
        if name:
            self.focus(name)
        argv = self.server.attach_command(layout.ROOM_SESSION)
        return [*argv, ";", "display-message", "-d", "15000", told] if told else argv

    def coordinator_state(self) -> str | None:
        """The coordinator's trouble in one line: none running while the room is up, or
        what the running one reports; None when it is fine or the room is down."""
        from workers.coordinator.lock import is_running, read_state

        if not is_running(self.home) and self.server.has_session(layout.ROOM_SESSION):
            return NOT_RUNNING
        return read_state(self.home)

    def keep_coordinator(self) -> bool:
        """Restart a dead coordinator while the room's tmux server runs; True if it did."""
        from workers.coordinator.loop import is_running
        from workers.room import lifecycle

        if is_running(self.home) or not self.server.has_session(layout.ROOM_SESSION):
            return False
        return lifecycle.ensure_coordinator(self.server, self.home)

    def show_attention(self, count: int) -> None:
        """"1 needs you", "N need you" on the right of the room's tmux status line (cleared
        at 0)."""
        if not self.server.has_session(layout.ROOM_SESSION):
            return  # a dashboard outside `bullpen up`: there is no status line to set
        need = "needs" if count == 1 else "need"
        text = f"#[fg=black,bg=yellow,bold] {count} {need} you #[default]" if count else ""
        self.server.check("set-option", "-t", f"={layout.ROOM_SESSION}:", "status-right", text)

    @staticmethod
    def doctor(home: Path) -> list:
        """What is wrong with the room at `home`, each with its fix (read-only)."""
        from workers.room.doctor import diagnose

        return diagnose(home)

    # -- one session ---------------------------------------------------------------------

    def spawn(self, name: str, agent: str | None = None, task: str | None = None, *,
              profile: str | None = None, base: str | None = None,
              on_commit: str | None = None, fs_reads: bool = False,
              deliver: str | None = None, with_dashboard: bool = True) -> Session:
        """Start a new session in its own worktree and pane (every refusal comes before
        anything is made); `agent` defaults to bullpen.yaml's."""
        from workers.room import config, lifecycle, spawn
        if deliver not in (None, *config.DELIVER_VALUES):  # the dashboard's form is free text
            raise BadInput(f"deliver {deliver!r}: use {' or '.join(config.DELIVER_VALUES)}")
        plan = config.load(self.root)
        request = spawn.SpawnRequest(
            name=name, agent=agent if agent is not None else plan.agent, profile=profile,
            task=task, base=base, on_commit=on_commit, fs_reads=fs_reads, deliver=deliver)
        with self._privileged(Power.SPAWN, name):
            session = spawn.spawn(self.home, request, server=self.server,
                                  with_dashboard=with_dashboard, layout_name=plan.layout)
        lifecycle.ensure_coordinator(self.server, self.home)
        return session

    def stop(self, name: str, *, remove_worktree: bool = False,
             force: bool = False) -> list[str]:
        """Stop the session's agent (its worktree stays unless asked); one line per act."""
        from workers.room import spawn
        if force and not remove_worktree:
            raise BadInput("--force only applies with --remove-worktree")
        options = ("--remove-worktree",) * remove_worktree + ("--force",) * force
        remote = self._ask_elsewhere(name, "stop", options)
        if remote is not None:
            return [remote]
        with self._privileged(Power.STOP, name):
            if remove_worktree:
                with self._operator_room() as room:
                    authority.check(room.conn, self.caller, Power.REMOVE, name, force=force)
            return spawn.stop(self.home, name, remove=remove_worktree, force=force,
                              server=self.server)

    def rm(self, name: str, *, delete_branch: bool = False, force: bool = False) -> list[str]:
        """Stop `name`, remove its worktree (refused while it holds work, unless `force`)
        and forget it; its branch stays unless `delete_branch`. One line per act."""
        from workers.room import remote_verbs, removal
        if self.caller.name == name:  # its own pane, cwd and identity would go under it
            raise BadInput(f"{name} cannot remove itself; the operator runs bullpen rm {name}")
        with self._operator_room() as room:
            if elsewhere := remote_verbs.machine_elsewhere(room.conn, self.home, name):
                raise BadInput(f"{name} runs on machine {elsewhere}; run bullpen rm there")
        with self._privileged(Power.REMOVE, name, force=force):
            return removal.remove_session(self.home, name, delete_branch=delete_branch,
                                          force=force, server=self.server)

    def restart(self, name: str, *, fresh: bool = False) -> Session:
        """Start the session's agent again in a fresh pane (resuming its conversation
        unless `fresh`; a session of another machine: by that machine, when it lets)."""
        from workers.room import lifecycle, spawn
        if self._ask_elsewhere(name, "restart", ("--fresh",) * fresh) is not None:
            with self._operator_room() as room:
                return sessions.require(room.conn, name)
        with self._privileged(Power.RESTART, name):
            session = spawn.restart(self.home, name, server=self.server, fresh=fresh)
        lifecycle.ensure_coordinator(self.server, self.home)
        return session

    def _ask_elsewhere(self, name: str, verb: str, options: tuple[str, ...]) -> str | None:
        """For a session another machine runs: ask that machine (remote_verbs) and return
        its answer; None for a session of this machine."""
        from workers.room import remote_verbs
        with self._operator_room() as room:
            elsewhere = remote_verbs.machine_elsewhere(room.conn, self.home, name)
            if elsewhere is None:
                return None
            return remote_verbs.ask(room.conn, self.home, self.caller, name, verb, options,
                                    elsewhere)

    def pane(self, name: str) -> str:
        """The session's pane id, only while that pane is still the session's own."""
        with self._operator_room() as room:
            session = sessions.require(room.conn, name)
        if not session.pane or not layout.owns_pane(self.server, session.pane, name):
            raise BadInput(f"{name} has no pane; start it with bullpen restart {name}")
        return session.pane

    def focus(self, name: str) -> None:
        """Move tmux focus to the session's pane (its window becomes current)."""
        self.server.select_pane(self.pane(name))

    def zoom(self, name: str) -> None:
        """Toggle the session's pane between zoomed and its place in the layout."""
        pane = self.pane(name)
        zoomed = self.server.check("display-message", "-p", "-t", pane,
                                   "#{window_zoomed_flag}").strip() == "1"
        self.server.select_pane(pane)
        self.server.zoom_pane(pane, zoomed=not zoomed)

    def capture(self, name: str) -> str:
        """The visible text of the session's pane; for a session on another machine, the
        capture its coordinator stored, saying where it runs."""
        from workers.room.remote_preview import remote_preview  # here: previews, presence

        remote = remote_preview(self.home, name)
        return remote if remote is not None else self.server.capture(self.pane(name))

    def questions(self) -> list[Question]:
        """What each session that needs input asks now, with the choices it offers."""
        from workers.room import answers
        return answers.questions(self.home, self.server)

    def answer(self, name: str, choice: str, question_id: str | None = None,
               via: str | None = None) -> Answered:
        """Type the operator's `choice` into `name`'s question, only while it is still
        the question `question_id` (refused and audited otherwise; `answers`)."""
        from workers.room import answers
        return answers.answer(self.home, self.server, self.caller, name, choice,
                              question_id, via)

    # -- code flow -----------------------------------------------------------------------

    def code_flows(self) -> dict[str, CodeFlow]:
        """Each session's code: ahead/behind the base, conflicts, landed or ready to land."""
        with self._operator_room() as room:
            return code_flows(room.conn, self.root, sessions.all_sessions(room.conn))

    def landing_preview(self, name: str) -> LandingPreview:
        """What landing `name` would do (base, strategy, check) and where its code stands."""
        from workers.room import land
        return land.landing_preview(self.home, name)

    def land(self, name: str, on_output: Callable[[str], None] = lambda line: None,
             accepted: tuple[RuleChange, ...] = ()) -> str:
        """Land `name`'s branch (the check's lines to `on_output`); the line saying what
        landed. `accepted`: the changes to the room's rules the operator was shown and
        said yes to (any other refuses). Raises Refused or LandRefused (audited; nothing
        changed)."""
        from workers.room import land
        return land.land_session(self.home, self.caller, name, on_output,
                                 allow_config=bool(accepted), shown=accepted or None)

    # -- a session's worktree (workers/room/worktree_view.py) -------------------------

    def diff(self, name: str) -> str:
        """What `bullpen diff NAME` prints: commits since the base and uncommitted edits."""
        return worktree_view.diff(self.home, name)

    def changed_paths(self, name: str) -> list[str]:
        """The uncommitted files in the session's worktree."""
        return worktree_view.changed_paths(self.home, name)

    def changed_files(self, name: str) -> int | None:
        """How many files differ in the session's worktree (None: no worktree)."""
        return worktree_view.changed_files(self.home, name)
