"""`bullpen note send|inbox`: notes between sessions."""

from __future__ import annotations

import time

from board import chains, deliveries, notes
from board.errors import NotFound
from tui.cli import note_chains
from tui.cli.context import record_id, room
from tui.cli.output import fail, print_json

TYPE_CHECKING = False  # not typing's: `note send` runs on every agent turn
if TYPE_CHECKING:
    import argparse

WAIT_POLL_SECONDS = 0.025
GIVEN_STATES = ("typed", "handed", "read")  # the recipient has it


def register(subparsers: argparse._SubParsersAction) -> None:
    note = subparsers.add_parser("note", help="send notes and read your inbox")
    verbs = note.add_subparsers(dest="verb", metavar="VERB", required=True)

    send = verbs.add_parser("send", help="send a note to a session, 'operator' or 'all'")
    send.add_argument("to", metavar="TO", help="a session name, 'operator', or 'all'")
    send.add_argument("text", metavar="TEXT", nargs="+", help="the note (words are joined)")
    send.add_argument("--reply-to", type=record_id, metavar="ID",
                      help="the id of the note you answer")
    send.add_argument("--json", action="store_true", help="print the stored note as JSON")
    send.add_argument("--wait", type=_seconds, metavar="SECONDS", default=None,
                      help="wait until it is typed, handed or read (exit 1 with its state"
                      " when SECONDS pass first)")
    send.set_defaults(handler=send_note)

    show = verbs.add_parser("show", help="one note and its delivery state per recipient")
    show.add_argument("id", type=record_id, metavar="ID", help="the note's id")
    show.add_argument("--json", action="store_true", help="print it as a JSON object")
    show.set_defaults(handler=show_note)

    inbox = verbs.add_parser("inbox", help="your unread notes (marks them read)")
    inbox.add_argument("--json", action="store_true", help="print a JSON array of notes")
    inbox.add_argument("--all", action="store_true", help="every note received, with its"
                       " delivery state (typed, handed, read, queued, held)")
    inbox.add_argument("--wait", type=_seconds, metavar="SECONDS", default=0.0,
                       help="block until a note arrives or SECONDS pass")
    inbox.set_defaults(handler=read_inbox)
    note_chains.register(verbs)


MAX_WAIT = 86_400.0


class SendArgs:
    """`note send TO TEXT...` with no option: what argparse would make of it, without
    building a parser (tui.cli.main takes this path; any word starting with '-', or a
    missing TEXT, goes through argparse)."""

    reply_to = None
    json = False
    wait = None

    def __init__(self, to: str, text: list[str]) -> None:
        self.to, self.text = to, text

    @staticmethod
    def plain(words: list[str]) -> SendArgs | None:
        """`words` after `note send` as SendArgs, or None when argparse must read them."""
        if len(words) < 2 or any(word.startswith("-") for word in words):
            return None
        return SendArgs(words[0], words[1:])


def _seconds(text: str) -> float:
    """A time to wait: a number of seconds, zero or more."""
    import argparse  # parsing, which the plain `note send TO TEXT` skips (tui.cli.main)

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value >= 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"{text!r} is not 0 or more seconds")
    if value > MAX_WAIT:  # also refuses inf (1e309): a wait that never ends is a hang
        raise argparse.ArgumentTypeError(f"{text!r} is more than {MAX_WAIT:.0f} seconds"
                                         " (a day); wait in a loop instead")
    return value


def send_note(args: argparse.Namespace | SendArgs) -> int:
    from workers.worktree_head import sender_head

    with room() as current:
        note = notes.send(current.conn, current.caller, args.to, " ".join(args.text),
                          reply_to=args.reply_to,
                          sender_head=sender_head(current.conn, current.caller))
        held = note_chains.held_line(current.conn, note)
        if args.json:
            print_json({**note.to_json(), "chain": chains.place(current.conn, note.id)})
        else:
            print(f"note {note.id} to {args.to}" + (f", {held}" if held else ""), flush=True)
        if args.wait is None:
            return 0
        return _wait_given(current.conn, note.id, args.wait)


def _wait_given(conn, note_id: int, seconds: float) -> int:
    """0 once every recipient was given the note; 1 with its states when time is up."""
    deadline = time.monotonic() + seconds
    while True:
        states = deliveries.of_note(conn, note_id)
        if all(d.state in GIVEN_STATES for d in states):
            return 0
        if time.monotonic() >= deadline:
            fail(f"note {note_id} not delivered after {seconds:g}s: "
                 + ", ".join(_state_text(d) for d in states if d.state not in GIVEN_STATES), 1)
        time.sleep(WAIT_POLL_SECONDS)  # the user asked to block; a cheap indexed read


def _state_text(delivery: deliveries.Delivery) -> str:
    held = f" ({delivery.held_reason})" if delivery.held_reason else ""
    repeat = ", possible repeat" if delivery.possible_repeat else ""
    return f"{delivery.recipient} {delivery.state}{held}{repeat}"


def show_note(args: argparse.Namespace) -> int:
    with room() as current:
        viewer = current.caller.name
        note = notes.visible(current.conn, viewer, args.id)
        if note is None:
            raise NotFound(f"note {args.id} does not exist or was not sent to {viewer}")
        states = deliveries.of_note(current.conn, note.id)
        place = chains.place(current.conn, note.id)
    if not (current.caller.is_operator or viewer == note.sender):
        states = [d for d in states if d.recipient == viewer]  # only its own delivery
    if args.json:
        print_json({**note.to_json(), "chain": place,
                    "deliveries": [d.to_json() for d in states]})
        return 0
    reply = f" re #{note.reply_to}" if note.reply_to else ""
    print(f"note {note.id} from {note.sender} to {note.recipient}{reply} ({note.kind})")
    print(note.body)
    if place is not None:
        print(f"chain {place['id']} ({place['state']}): note {place['position']} of it, sent"
              f" {place['hops_at_note']} agent-to-agent note(s) after the last progress")
    for delivery in states:
        print(f"  {_state_text(delivery)}")
    return 0


def read_inbox(args: argparse.Namespace) -> int:
    with room() as current:
        deadline = time.monotonic() + max(args.wait, 0.0)
        if args.wait > 0 and not notes.unread_count(current.conn, current.caller.name):
            # The user asked to block: a cheap indexed count after each change (pushed
            # by PostgreSQL, polled on SQLite). Imported here: note send never waits.
            from board import wakeup

            changes = wakeup.waiter(current.conn, WAIT_POLL_SECONDS)
            try:
                while (not notes.unread_count(current.conn, current.caller.name)
                       and (left := deadline - time.monotonic()) > 0):
                    changes.wait(left)
            finally:
                changes.close()
        states = {}
        if args.all:  # before reading: the state the notes were in when asked
            states = {n.id: d for n in notes.inbox(current.conn, current.caller, mark_read=False,
                                                  include_read=True)
                      for d in deliveries.of_note(current.conn, n.id)
                      if d.recipient == current.caller.name}
        received = notes.inbox(current.conn, current.caller, include_read=args.all)
    if args.json:
        print_json([_inbox_json(note, states.get(note.id)) for note in received])
    elif not received:
        print("no new notes")
    else:
        for note in received:
            _print_note(note, _state_cell(states.get(note.id)) if args.all else None)
    return 0


def _print_note(note, state: str | None) -> None:
    """A header line, then the whole body wrapped to the terminal and indented."""
    import shutil
    import textwrap

    header = f"#{note.id} from {note.sender} ({note.kind}" + (
        f", re #{note.reply_to}" if note.reply_to else "") + ")" + (
        f" · {state}" if state else "")
    print(header)
    width = max(shutil.get_terminal_size((100, 24)).columns, 40)
    for line in note.body.splitlines() or [""]:
        print(textwrap.fill(line, width, initial_indent="    ", subsequent_indent="    ",
                            break_long_words=True, break_on_hyphens=False) or "    ")


def _inbox_json(note, delivery) -> dict:
    data = note.to_json()
    if delivery is not None:
        data["delivery"] = delivery.to_json()
    return data


def _state_cell(delivery) -> str:
    if delivery is None:
        return "-"
    return delivery.state + (f" ({delivery.held_reason})" if delivery.held_reason else "")
