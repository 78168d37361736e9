"""`bullpen dashboard`: the Textual view of the room (Textual is imported only here, lazily)."""

from __future__ import annotations

import argparse
import sys

from board import store
from board.errors import BadInput
from board.home import DB_NAME, room_home


def register(subparsers: argparse._SubParsersAction) -> None:
    dashboard = subparsers.add_parser(
        "dashboard", help="the dashboard: sessions, board, notes, watcher, preview")
    dashboard.add_argument("--no-bell", action="store_true",
                           help="do not ring when something new needs you"
                           " (also: BULLPEN_BELL=off)")
    dashboard.set_defaults(handler=run_dashboard)


def run_dashboard(args: argparse.Namespace) -> int:
    """Run the dashboard for the room of the current repository (or BULLPEN_HOME)."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):  # else it ran for ever, writing
        raise BadInput("bullpen dashboard needs a terminal (its input and output are not"
                       " one); run it in a terminal, or use bullpen ls")
    home = room_home()
    on_sqlite = store.choose(home).kind == store.StoreKind.SQLITE
    if on_sqlite and not (home / DB_NAME).exists():
        raise BadInput(f"no bullpen room at {home}; run bullpen init (or bullpen up)")
    from tui.dashboard import make_app  # Textual loads only for this command

    make_app(home, bell=False if args.no_bell else None).run()
    return 0
