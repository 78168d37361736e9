"""`bullpen notebook write|read|search`: what sessions write down, shared or private."""

from __future__ import annotations

import argparse

from board import notebook
from board.models import NotebookEntry
from tui.cli.context import room
from tui.cli.output import print_json


def register(subparsers: argparse._SubParsersAction) -> None:
    book = subparsers.add_parser("notebook", help="write, read and search notebooks")
    verbs = book.add_subparsers(dest="verb", metavar="VERB", required=True)

    write = verbs.add_parser("write", help="add an entry to your notebook")
    write.add_argument("text", metavar="TEXT", nargs="+", help="the entry (words are joined)")
    write.add_argument("--private", action="store_true", help="only you can ever read it")
    write.add_argument("--tag", metavar="T", help="a short tag to find it by")
    write.add_argument("--json", action="store_true", help="print the stored entry as JSON")
    write.set_defaults(handler=write_entry)

    read = verbs.add_parser("read", help="read notebooks (one session's, or everyone's)")
    read.add_argument("session", metavar="SESSION", nargs="?", help="whose notebook")
    read.add_argument("--json", action="store_true", help="print a JSON array of entries")
    read.set_defaults(handler=read_entries)

    search = verbs.add_parser("search", help="full-text search over the notebooks")
    search.add_argument("query", metavar="QUERY", nargs="+", help="words to look for")
    search.add_argument("--json", action="store_true", help="print a JSON array of entries")
    search.set_defaults(handler=search_entries)


def write_entry(args: argparse.Namespace) -> int:
    with room() as current:
        entry = notebook.write_entry(current.conn, current.caller, " ".join(args.text),
                                     private=args.private, tag=args.tag)
    if args.json:
        print_json(entry.to_json())
    else:
        print(f"notebook entry {entry.id}{' (private)' if entry.private else ''}")
    return 0


def read_entries(args: argparse.Namespace) -> int:
    with room() as current:
        if args.session:
            from board import sessions
            if args.session != current.caller.name:
                sessions.require(current.conn, args.session)
        entries = notebook.read(current.conn, current.caller, args.session)
    _show(entries, args.json, "no notebook entries")
    return 0


def search_entries(args: argparse.Namespace) -> int:
    with room() as current:
        entries = notebook.search(current.conn, current.caller, " ".join(args.query))
    _show(entries, args.json, "nothing found")
    return 0


def _show(entries: list[NotebookEntry], as_json: bool, empty: str) -> None:
    if as_json:
        print_json([entry.to_json() for entry in entries])
        return
    if not entries:
        print(empty)
    for entry in entries:
        marks = " [private]" if entry.private else ""
        marks += f" #{entry.tag}" if entry.tag else ""
        print(f"--- {entry.id} {entry.author}{marks} {entry.to_json()['created_at']}")
        print(entry.body)
