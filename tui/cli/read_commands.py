"""`bullpen read` and `bullpen alerts`: who read what, and what changed under them."""

from __future__ import annotations

import argparse

from board import alerts, reads
from board.repo_paths import repo_relative
from board.vocabulary import ReadSource
from tui.cli.context import require_session, room
from tui.cli.output import print_json, print_table


def register(subparsers: argparse._SubParsersAction) -> None:
    read = subparsers.add_parser("read", help="record that you read these files")
    read.add_argument("paths", metavar="PATH", nargs="+", help="files in this repository")
    read.set_defaults(handler=record_reads)

    listing = subparsers.add_parser("alerts", help="files you read that someone else changed")
    listing.add_argument("--json", action="store_true", help="print a JSON array of alerts")
    listing.set_defaults(handler=list_alerts)


def record_reads(args: argparse.Namespace) -> int:
    paths = repo_relative(args.paths)
    with room() as current:
        session = require_session(current, "record reads")
        count = reads.record(current.conn, session, paths, source=ReadSource.EXPLICIT)
    print(f"recorded {count} read{'s' if count != 1 else ''}")
    return 0


def list_alerts(args: argparse.Namespace) -> int:
    with room() as current:
        found = (alerts.recent(current.conn) if current.caller.is_operator
                 else alerts.for_session(current.conn, current.caller.name))
    if args.json:
        print_json([alert.to_json() for alert in found])
    elif not found:
        print("no alerts")
    else:
        print_table(["id", "for", "path", "changed by", "commit", "see"],
                    [(a.id, a.session, a.path + (f" +{len(a.paths) - 1}" if len(a.paths) > 1
                                                 else ""),
                      a.changed_by, (a.commit or "uncommitted")[:12], a.show_command)
                     for a in found])
    return 0
