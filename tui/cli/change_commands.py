"""`bullpen diff` and `bullpen sync`: look at another session's change, and take it in."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from board import sessions
from board.errors import BadInput
from board.home import main_worktree
from board.models import Session
from board.repo_paths import repo_relative
from board.room import Room
from tui.cli.context import room
from tui.cli.output import print_json


def register(subparsers: argparse._SubParsersAction) -> None:
    diff = subparsers.add_parser(
        "diff", help="show a session's change: its commits since its base and uncommitted edits",
        description="Show what SESSION changed since its base (commits, staged, unstaged and"
                    " new files). Paths after -- limit the diff.")
    diff.add_argument("session", metavar="SESSION", help="the session whose change to show")
    diff.add_argument("paths", metavar="PATH", nargs="*",
                      help="limit to these files (after --, relative to where you are)")
    diff.add_argument("--json", action="store_true",
                      help="print {session, branch, base, paths, diff} as JSON")
    diff.set_defaults(handler=show_diff)

    sync = subparsers.add_parser(
        "sync", help="merge a session's committed work into yours",
        description="Merge SESSION's branch into your worktree (the main checkout for the"
                    " operator). Your uncommitted work is never touched: a merge that would"
                    " overwrite it is refused, and a conflicting merge is undone unless"
                    " --keep-conflicts is given.")
    sync.add_argument("session", metavar="SESSION", help="the session whose commits to merge")
    sync.add_argument("--keep-conflicts", action="store_true",
                      help="leave conflicting files in place to resolve, instead of undoing")
    sync.add_argument("--json", action="store_true", help="print the sync report as JSON")
    sync.set_defaults(handler=sync_session)


def _worktree_of(session: Session) -> Path:
    if not session.worktree or not Path(session.worktree).is_dir():
        raise BadInput(f"session {session.name!r} has no worktree on disk"
                       f" ({session.worktree or 'none recorded'}); see bullpen ls")
    return Path(session.worktree)


def _branch_of(session: Session) -> str:
    from worktrees.naming import branch_for

    return session.branch or branch_for(session.name)


def _elsewhere(current: Room, session: Session) -> str | None:
    """For a session on another machine: its branch fetched from the `push:` remote (the
    ref to read); None for a session of this machine."""
    from workers.coordinator.presence import Presence

    here = Presence(current.home, current.conn)
    if here.mine([session]):
        return None
    from workers.room import config as config_file
    from worktrees.remote import fetch_branch

    root = main_worktree()
    remote = config_file.load(root).push
    if remote is None:
        raise BadInput(f"session {session.name} runs on machine {session.machine}; set"
                       " push: REMOTE in bullpen.yaml so its commits reach this machine")
    ref = fetch_branch(root, remote, _branch_of(session))
    if ref is None:
        raise BadInput(f"session {session.name}'s branch lives on machine {session.machine}"
                       f" and is not on {remote} yet (it is pushed at each commit)")
    return ref


def show_diff(args: argparse.Namespace) -> int:
    from worktrees.changes import session_diff
    from worktrees.remote import branch_diff

    paths = repo_relative(args.paths) if args.paths else []
    with room() as current:
        session = sessions.require(current.conn, args.session)
        fetched = _elsewhere(current, session)
    if fetched is not None:
        print(f"session {session.name} runs on machine {session.machine}: its commits, as"
              " pushed (uncommitted edits stay there)", file=sys.stderr)
        text = branch_diff(main_worktree(), session.base, fetched, paths)
    else:
        text = session_diff(_worktree_of(session), session.base, paths)
    if args.json:
        print_json({"session": session.name, "branch": _branch_of(session),
                    "base": session.base, "paths": paths, "diff": text})
    elif text:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        where = f" in {', '.join(paths)}" if paths else ""
        print(f"session {session.name} has no changes{where} since its base", file=sys.stderr)
    return 0


def _my_checkout(current: Room) -> tuple[str, Path]:
    """Who is syncing and into which checkout: a session's worktree, or the main one."""
    if current.caller.is_operator:
        return "the main checkout", main_worktree()
    me = sessions.require(current.conn, current.caller.name)
    return f"session {me.name}", _worktree_of(me)


def sync_session(args: argparse.Namespace) -> int:
    from worktrees.sync import sync

    with room() as current:
        other = sessions.require(current.conn, args.session)
        who, checkout = _my_checkout(current)
        fetched = _elsewhere(current, other)
    if not current.caller.is_operator and other.name == current.caller.name:
        raise BadInput("you cannot sync a session into itself; name another session")
    branch = fetched or _branch_of(other)
    report = sync(checkout, branch, keep_conflicts=args.keep_conflicts)
    if args.json:
        print_json({"session": other.name, "branch": branch, "into": str(checkout),
                    "merged": report.merged, "fast_forward": report.fast_forward,
                    "conflicts": list(report.conflicts), "blocked_by": list(report.blocked_by),
                    "message": report.message})
    else:
        print(f"{who}: {report.message}")
        for path in report.conflicts:
            print(f"  conflict: {path}")
        for path in report.blocked_by:
            print(f"  uncommitted, would be overwritten: {path}")
    return 1 if report.conflicts or report.blocked_by else 0
