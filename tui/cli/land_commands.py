"""`bullpen land` and `bullpen conflicts`: the code flow — landing work, and the radar."""

from __future__ import annotations

import argparse
import sys

from tui.cli.output import print_json, print_table


def register(subparsers: argparse._SubParsersAction) -> None:
    land = subparsers.add_parser(
        "land", help="merge a session's branch into the base branch, after the check passes",
        description="Land SESSION's branch on the main checkout's branch: the result is"
                    " built in a temporary worktree, land.check from bullpen.yaml runs there,"
                    " and only then does the base branch move. A conflict or a failing check"
                    " changes nothing. Operator only, or a session with may: [land]. A"
                    " branch that would change the room's rules in bullpen.yaml (may, deny,"
                    " budget, prices, land, agent, setup, machine) is named and refused"
                    " unless the operator gives --allow-config.")
    land.add_argument("session", metavar="SESSION", nargs="?", help="the session to land")
    land.add_argument("--all", action="store_true",
                      help="land every done session in plan order (parents first); stop at"
                           " the first refusal")
    land.add_argument("--allow-config", action="store_true",
                      help="land even if the branch changes the room's rules in bullpen.yaml"
                           " (operator only; the changed keys are named)")
    land.add_argument("--quiet", action="store_true", help="do not show the check's output")
    land.set_defaults(handler=land_sessions)

    conflicts = subparsers.add_parser(
        "conflicts", help="predicted merge conflicts between sessions and with the base",
        description="The conflict radar: pairs of sessions (or a session and the base"
                    " branch) whose work would not merge, with files, lines and commits.")
    conflicts.add_argument("--json", action="store_true",
                           help="print a JSON array of open conflicts")
    conflicts.set_defaults(handler=list_conflicts)


def land_sessions(args: argparse.Namespace) -> int:
    from board.errors import BadInput
    from tui.cli.session_commands import _control
    from workers.room import land

    if bool(args.session) == bool(args.all):
        raise BadInput("name one SESSION to land, or give --all (not both)")
    control = _control()

    def show(line: str) -> None:
        if not args.quiet:
            print(f"  check | {line}", file=sys.stderr, flush=True)

    if args.all:
        land.land_all(control.home, control.caller, on_output=show,
                      say=lambda line: print(line, flush=True),
                      allow_config=args.allow_config)
    else:
        print(land.land_session(control.home, control.caller, args.session, on_output=show,
                                allow_config=args.allow_config))
    return 0


def list_conflicts(args: argparse.Namespace) -> int:
    from board import conflicts
    from tui.cli.context import room

    with room() as current:
        found = conflicts.open_conflicts(current.conn)
    if args.json:
        print_json([conflict.to_json() for conflict in found])
    elif not found:
        print("no predicted conflicts")
    else:
        from board.models import iso

        print_table(["between", "and", "files", "lines", "since"],
                    [(c.a, c.b, ", ".join(c.paths), _lines(c), iso(c.since)) for c in found])
    return 0


def _lines(conflict) -> str:  # noqa: ANN001 - a board.conflicts.Conflict
    parts = []
    for item in conflict.files:
        mine = ",".join(f"{a}-{b}" if a != b else str(a) for a, b in item.a_lines)
        theirs = ",".join(f"{a}-{b}" if a != b else str(a) for a, b in item.b_lines)
        parts.append(f"{item.path}: {conflict.a} {mine or '?'} / {conflict.b} {theirs or '?'}")
    return "; ".join(parts)
