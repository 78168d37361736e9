"""`bullpen up|down|spawn|ls|stop|rm|restart|attach`: sessions in worktrees and tmux panes.

Each handler calls one verb of the room façade (`workers.room.control.RoomControl`, the
same one the dashboard and the demo use), imported lazily so the room's fast commands
never pay for the tmux driver and GitPython.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tui.cli.output import print_json, print_table


def register(subparsers: argparse._SubParsersAction) -> None:
    up = subparsers.add_parser("up", help="start the room (or reattach to it)")
    up.add_argument("--detach", action="store_true", help="start and return (scripts, CI)")
    up.add_argument("--fresh", action="store_true", help="agents started again begin new"
                    " conversations instead of resuming their last ones")
    up.add_argument("--no-dashboard", action="store_true", help=argparse.SUPPRESS)
    up.set_defaults(handler=room_up)

    down = subparsers.add_parser("down", help="stop every session, the coordinator and tmux")
    down.add_argument("--remove-worktrees", action="store_true",
                      help="also remove clean, merged worktrees")
    down.add_argument("--force", action="store_true",
                      help="with --remove-worktrees: remove them even with unsaved work")
    down.add_argument("--timeout", type=float, metavar="SECONDS",
                      help="how long agents get to exit before what is left of their"
                      " panes is ended (default 10)")
    down.set_defaults(handler=room_down)

    spawn = subparsers.add_parser("spawn", help="start a new session in its own worktree")
    spawn.add_argument("name", metavar="NAME", help="the session's name (lower case, digits,"
                       " '-', '_'); its branch is bullpen/NAME")
    spawn.add_argument("--agent", metavar="CMD", help="the command to run (default from"
                       " bullpen.yaml, else hermes)")
    spawn.add_argument("--profile", metavar="P", help="hermes profile (one session each)")
    spawn.add_argument("--task", metavar="TEXT", help="a task to assign to it")
    spawn.add_argument("--from", dest="base", metavar="REF", help="branch off REF (default:"
                       " the main checkout's HEAD)")
    spawn.add_argument("--on-commit", metavar="SESSION", help="ping it on SESSION's commits")
    spawn.add_argument("--fs-reads", action="store_true", help="record the files it opens"
                       " (best effort, for agents without hooks)")
    spawn.add_argument("--deliver", choices=("type", "inbox"), help="type: let bullpen type"
                       " notes into this agent's prompt when it does not know the agent")
    spawn.add_argument("--no-dashboard", action="store_true", help=argparse.SUPPRESS)
    spawn.set_defaults(handler=spawn_session)

    ls = subparsers.add_parser("ls", help="sessions: status, branch, worktree, changes")
    ls.add_argument("--json", action="store_true", help="print a JSON array of sessions")
    ls.set_defaults(handler=list_sessions)

    stop = subparsers.add_parser("stop", help="stop a session (its worktree stays)")
    stop.add_argument("name", metavar="NAME", help="the session to stop")
    stop.add_argument("--remove-worktree", action="store_true",
                      help="also remove its worktree if it is clean and merged")
    stop.add_argument("--force", action="store_true", help="remove it even with unsaved work")
    stop.set_defaults(handler=stop_session)

    rm = subparsers.add_parser("rm", help="stop a session and forget it (its branch stays)")
    rm.add_argument("name", metavar="NAME", help="the session to remove")
    rm.add_argument("--delete-branch", action="store_true",
                    help="also delete its branch bullpen/NAME (refused if not merged)")
    rm.add_argument("--force", action="store_true",
                    help="remove it even with uncommitted or unmerged work")
    rm.set_defaults(handler=remove_session)

    restart = subparsers.add_parser("restart", help="start a session's agent again")
    restart.add_argument("name", metavar="NAME", help="the session to start again")
    restart.add_argument("--fresh", action="store_true",
                         help="start a new conversation instead of resuming the last one")
    restart.set_defaults(handler=restart_session)

    attach = subparsers.add_parser("attach", help="put this terminal on the room")
    attach.add_argument("name", metavar="NAME", nargs="?", help="focus this session's pane")
    attach.set_defaults(handler=attach_room)

    # Unlisted (no help): `up` starts it in the room's hidden tmux session.
    coordinator = subparsers.add_parser(
        "coordinator", description="Run the room's coordinator (bullpen up starts it).")
    coordinator.set_defaults(handler=run_coordinator)


def _home() -> Path:
    from board.home import room_home
    from board.room import prepare_home

    home = room_home()
    prepare_home(home)
    return home


def _control(home: Path | None = None):  # noqa: ANN202 - imported lazily (tmux, git)
    """The room façade every surface calls (`workers.room.control.RoomControl`)."""
    from workers.room.control import RoomControl

    return RoomControl(home or _home())


def room_up(args: argparse.Namespace) -> int:
    home = _home()
    shown = sys.stderr.isatty()

    def progress(line: str) -> None:  # one line, rewritten: `starting 37/200`
        if shown:
            print(f"\r{line}\033[K", end="", file=sys.stderr, flush=True)

    try:
        report = _control(home).up(with_dashboard=not args.no_dashboard, fresh=args.fresh,
                                   progress=progress)
    finally:
        if shown:  # the progress line goes; what was done is printed below
            print("\r\033[K", end="", file=sys.stderr, flush=True)
    for line in report.lines:
        print(line)
    if args.detach or not sys.stdout.isatty():
        print(f"room is up; attach with: bullpen attach (socket {_socket(home)})")
        return 0
    return _attach(home, None)


def room_down(args: argparse.Namespace) -> int:
    waits = {} if args.timeout is None else {"timeout": args.timeout}
    for line in _control().down(remove_worktrees=args.remove_worktrees,
                                force=args.force, **waits).lines:
        print(line)
    return 0


def spawn_session(args: argparse.Namespace) -> int:
    session = _control().spawn(  # checks everything before it makes anything
        args.name, args.agent, args.task, profile=args.profile, base=args.base,
        on_commit=args.on_commit, fs_reads=args.fs_reads, deliver=args.deliver,
        with_dashboard=not args.no_dashboard)
    print(f"started {session.name} in {session.worktree} on {session.branch}"
          f" (pane {session.pane})")
    return 0


def list_sessions(args: argparse.Namespace) -> int:
    from workers.agents.levers import lost_levers  # the row's words for what cannot hold

    control = _control()
    rows = control.ls()
    state = control.coordinator_state()  # e.g. "store not writable — database or disk is full"
    if state:
        print(f"coordinator: {state}", file=sys.stderr if args.json else sys.stdout)
    if args.json:
        print_json([{**row.to_json(), "levers": list(lost_levers(row.agent, row.agent_version))}
                    for row in rows])
    elif not rows:
        print("no sessions; start one with bullpen spawn NAME or bullpen up")
    else:
        # A room across machines says where each session runs, beside its name.
        machines = len({r.machine for r in rows} - {None}) > 1
        print_table(["name", *(["machine"] if machines else []), "status", "branch",
                     "worktree", "pane", "changed", "ahead", "code", "agent"],
                    [(r.name, *((r.machine,) if machines else ()),
                      r.status + (f" ({r.exit_code})" if r.exit_code is not None else "")
                      + "".join(f" · {lever}" for lever in lost_levers(r.agent,
                                                                         r.agent_version)),
                      r.branch, _worktree(r, control.root), r.pane, len(r.changed_files),
                      _ahead(r.code),
                      (r.code.summary if r.code else "") or None, r.agent) for r in rows])
    return 0


def _worktree(row, root: Path) -> str | None:  # noqa: ANN001 - workers.room.listing.SessionRow
    """Its worktree from the repository's root (`.bullpen/worktrees/coder`), or `removed`."""
    if row.removed:
        return "removed"
    if row.worktree is None:
        return None
    path = Path(row.worktree)
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def _ahead(code) -> str | None:  # noqa: ANN001 - workers.room.code_view.CodeFlow
    """`+2 -1`: commits ahead of and behind the base branch."""
    if code is None or code.ahead is None:
        return None
    return f"+{code.ahead} -{code.behind}"


def stop_session(args: argparse.Namespace) -> int:
    for line in _control().stop(args.name, remove_worktree=args.remove_worktree,
                                force=args.force):
        print(line)
    return 0


def remove_session(args: argparse.Namespace) -> int:
    for line in _control().rm(args.name, delete_branch=args.delete_branch, force=args.force):
        print(line)
    return 0


def restart_session(args: argparse.Namespace) -> int:
    session = _control().restart(args.name, fresh=args.fresh)  # unknown: starts nothing
    from board.machines import local_name

    where = "" if session.machine in (None, local_name(_home())) else \
        f" on machine {session.machine}"
    print(f"restarted {session.name}{where} (pane {session.pane})")
    return 0


def attach_room(args: argparse.Namespace) -> int:
    return _attach(_home(), args.name)


def _attach(home: Path, name: str | None) -> int:
    try:  # the room is laid out for this terminal (too small: a window per session)
        columns, lines = os.get_terminal_size(sys.stdout.fileno())
        size: tuple[int, int] | None = (columns, lines)
    except OSError:
        size = None
    argv = _control(home).attach_command(name, size)  # focuses NAME's own pane, or refuses
    os.execvp(argv[0], argv)
    return 0  # not reached


def _socket(home: Path) -> str:
    from workers.tmux.server import socket_name_for

    return socket_name_for(home.parent)


def run_coordinator(args: argparse.Namespace) -> int:
    from workers.coordinator.process import serve
    from workers.room.slots import RoomHands
    from workers.surfaces.hook_server import serving

    home = _home()  # agents' hooks over HTTP while it runs; the room's launch for max_running
    return serve(home, alongside=serving, hands=RoomHands(home))
