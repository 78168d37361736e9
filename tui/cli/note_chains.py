"""`bullpen note chains|release|end`: the loop guard's held conversations (board/chains.py)."""

from __future__ import annotations

from board import chains, loops
from board.models import Note
from board.vocabulary import HoldReason
from tui.cli.context import record_id, room
from tui.cli.output import print_json, print_table

TYPE_CHECKING = False  # not typing's: note_commands (and so `note send`) imports this
if TYPE_CHECKING:
    import argparse


def register(verbs: argparse._SubParsersAction) -> None:
    listing = verbs.add_parser("chains", help="conversation chains the loop guard holds")
    listing.add_argument("--json", action="store_true", help="print a JSON array of chains")
    listing.set_defaults(handler=list_chains)

    release = verbs.add_parser("release", help="let a held chain's notes through, once"
                               " (operator)")
    release.add_argument("chain", type=record_id, metavar="CHAIN", help="the chain's id")
    release.set_defaults(handler=release_chain)

    end = verbs.add_parser("end", help="end a held chain: drop its held notes, tell their"
                           " senders (operator)")
    end.add_argument("chain", type=record_id, metavar="CHAIN", help="the chain's id")
    end.set_defaults(handler=end_chain)


def list_chains(args: argparse.Namespace) -> int:
    with room() as current:
        found = chains.held(current.conn)
    if args.json:
        print_json([chain.to_json() for chain in found])
    elif not found:
        print("no held chains")
    else:
        print_table(("CHAIN", "HELD", "WHY"),
                    [(chain.id, chain.held_notes, chain.reason) for chain in found])
        print("release: bullpen note release CHAIN · end: bullpen note end CHAIN")
    return 0


def release_chain(args: argparse.Namespace) -> int:
    with room() as current:
        count = loops.release(current.conn, current.caller, args.chain)
    print(f"chain {args.chain} released: {count} held note(s) go through")
    return 0


def end_chain(args: argparse.Namespace) -> int:
    with room() as current:
        count = loops.end(current.conn, current.caller, args.chain)
    print(f"chain {args.chain} ended: {count} held note(s) dropped, their senders told")
    return 0


def held_line(conn, note: Note) -> str | None:
    """`held: loop suspected — …` when the note just sent was held by the loop guard."""
    place = chains.place(conn, note.id)
    if place is None or place["held_notes"] == 0 or not place["reason"]:
        return None
    from board import deliveries

    if not any(d.held_reason == HoldReason.LOOP for d in deliveries.of_note(conn, note.id)):
        return None
    return (f"held: {place['reason']} (chain {place['id']}; the operator releases or"
            " ends it)")
