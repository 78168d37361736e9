"""`bullpen audit`: the trail of privileged actions and refusals (who, what, when, outcome)."""

from __future__ import annotations

import argparse

from board import audit
from board.models import iso
from tui.cli.context import room
from tui.cli.output import one_line, print_json, print_table


def register(subparsers: argparse._SubParsersAction) -> None:
    listing = subparsers.add_parser(
        "audit", help="privileged actions and refusals: who, what, when, outcome")
    listing.add_argument("--json", action="store_true", help="print a JSON array of entries")
    listing.add_argument("--limit", type=int, default=200, metavar="N",
                         help="the newest N entries (default 200)")
    listing.set_defaults(handler=list_audit)


def list_audit(args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= 1_000_000:
        from board.errors import BadInput
        raise BadInput(f"--limit {args.limit} is not between 1 and 1000000")
    with room() as current:
        entries = audit.entries(current.conn, limit=args.limit)
        if not current.caller.is_operator:  # a session sees what it did or had done to it
            me = current.caller.name
            entries = [e for e in entries if me in (e.actor, e.target)]
    if args.json:
        print_json([entry.to_json() for entry in entries])
    elif not entries:
        print("no privileged actions yet")
    else:
        where = any(e.machine for e in entries)  # a room across machines: say which
        print_table(["when", *(["machine"] if where else []), "who", "what", "target",
                     "outcome", "detail"],
                    [(iso(e.created_at), *([e.machine or "-"] if where else []), e.actor,
                      e.action, e.target, e.outcome, one_line(e.detail or "", 70) or None)
                     for e in entries])
    return 0
