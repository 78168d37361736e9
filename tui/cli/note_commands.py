"""`bullpen note send|inbox`: notes between sessions."""

from __future__ import annotations

import argparse
import time

from board import notes, wakeup
from tui.cli.context import record_id, room
from tui.cli.output import one_line, print_json, print_table

WAIT_POLL_SECONDS = 0.025


def register(subparsers: argparse._SubParsersAction) -> None:
    note = subparsers.add_parser("note", help="send notes and read your inbox")
    verbs = note.add_subparsers(dest="verb", metavar="VERB", required=True)

    send = verbs.add_parser("send", help="send a note to a session, 'operator' or 'all'")
    send.add_argument("to", metavar="TO", help="a session name, 'operator', or 'all'")
    send.add_argument("text", metavar="TEXT", nargs="+", help="the note (words are joined)")
    send.add_argument("--reply-to", type=record_id, metavar="ID",
                      help="the id of the note you answer")
    send.add_argument("--json", action="store_true", help="print the stored note as JSON")
    send.set_defaults(handler=send_note)

    inbox = verbs.add_parser("inbox", help="your unread notes (marks them read)")
    inbox.add_argument("--json", action="store_true", help="print a JSON array of notes")
    inbox.add_argument("--all", action="store_true", help="include notes already read")
    inbox.add_argument("--wait", type=_seconds, metavar="SECONDS", default=0.0,
                       help="block until a note arrives or SECONDS pass")
    inbox.set_defaults(handler=read_inbox)


def _seconds(text: str) -> float:
    """A time to wait: a number of seconds, zero or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value >= 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"{text!r} is not 0 or more seconds")
    return value


def send_note(args: argparse.Namespace) -> int:
    with room() as current:
        note = notes.send(current.conn, current.caller, args.to, " ".join(args.text),
                          reply_to=args.reply_to)
    if args.json:
        print_json(note.to_json())
    else:
        print(f"note {note.id} to {args.to}")
    return 0


def read_inbox(args: argparse.Namespace) -> int:
    with room() as current:
        deadline = time.monotonic() + max(args.wait, 0.0)
        if args.wait > 0 and not notes.unread_count(current.conn, current.caller.name):
            # The user asked to block: a cheap indexed count after each change (pushed
            # by PostgreSQL, polled on SQLite).
            changes = wakeup.waiter(current.conn, WAIT_POLL_SECONDS)
            try:
                while (not notes.unread_count(current.conn, current.caller.name)
                       and (left := deadline - time.monotonic()) > 0):
                    changes.wait(left)
            finally:
                changes.close()
        received = notes.inbox(current.conn, current.caller, include_read=args.all)
    if args.json:
        print_json([note.to_json() for note in received])
    elif not received:
        print("no new notes")
    else:
        print_table(["id", "from", "kind", "reply", "note"],
                    [(n.id, n.sender, n.kind, n.reply_to, one_line(n.body, 100))
                     for n in received])
    return 0
