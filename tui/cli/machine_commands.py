"""`bullpen room join|migrate` and `bullpen machines`: one room across machines."""

from __future__ import annotations

import argparse

from board import audit, machines, pairing, store
from board.authority import DONE, Power
from board.errors import BadInput, Refused
from board.home import room_home
from board.postgres import guest_limits
from tui.cli.context import room
from tui.cli.output import print_json, print_table


def register(subparsers: argparse._SubParsersAction) -> None:
    room_parser = subparsers.add_parser(
        "room", help="the room's store: join a room on PostgreSQL, move a room there")
    verbs = room_parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    join = verbs.add_parser("join", help="ask to join the room at a PostgreSQL URL; prints"
                                         " the pairing code to approve")
    join.add_argument("url", help="postgresql://… of the room's database (any role that may"
                                  " connect; the password, if any, is not kept)")
    join.add_argument("--machine", help="this machine's name in the room (default: the"
                                        " host name)")
    join.set_defaults(handler=join_room)
    invite = verbs.add_parser("invite", help="prepare this room for partners (its guest"
                                             " login) and print what a partner runs")
    invite.add_argument("--host", help="the address partners reach the database at"
                                       " (default: the one this machine uses)")
    invite.set_defaults(handler=invite_partner)
    migrate = verbs.add_parser("migrate", help="copy this room to another store, keeping ids"
                                               " (SQLite to PostgreSQL, or back)")
    migrate.add_argument("--to", required=True, metavar="TARGET",
                         help="an empty PostgreSQL database's postgresql:// URL, or 'sqlite'"
                              " for the room's own file")
    migrate.set_defaults(handler=migrate_room)

    listing = subparsers.add_parser("machines", help="machines in the room: list, approve"
                                                     " a pairing code, revoke")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=list_machines)
    actions = listing.add_subparsers(dest="action", metavar="ACTION")
    approve = actions.add_parser("approve", help="let machine NAME, showing CODE, into the"
                                                 " room")
    approve.add_argument("name", help="the machine's name, as `room join` printed it")
    approve.add_argument("code", help="the 8-character code `room join` printed")
    approve.set_defaults(handler=approve_machine)
    revoke = actions.add_parser("revoke", help="take the room away from a machine at once")
    revoke.add_argument("name", help="the machine's name (see bullpen machines)")
    revoke.set_defaults(handler=revoke_machine)
    grant = actions.add_parser("grant", help="let machine NAME's operator stop or restart"
                                             " this machine's sessions (no POWER: none)")
    grant.add_argument("name", help="the other machine's name (see bullpen machines)")
    grant.add_argument("powers", nargs="*", metavar="POWER",
                       help="stop, restart, remove (kept in this machine's local config)")
    grant.set_defaults(handler=grant_machine)
    refuse = actions.add_parser("refuse", help="refuse machine NAME's waiting join request,"
                                               " or every waiting one (--waiting)")
    refuse.add_argument("name", nargs="?", help="the waiting machine's name")
    refuse.add_argument("--waiting", action="store_true",
                        help="refuse every waiting request (after a flood of requests;"
                             " run bullpen room invite too, to change the guest password)")
    refuse.set_defaults(handler=refuse_machine)


def join_room(args: argparse.Namespace) -> int:
    if not store.is_url(args.url):
        raise BadInput(f"{store.redact(args.url)!r} is not a postgresql:// URL")
    home = room_home()
    if machines.local_id(home) is not None and _in_the_room(home):
        raise Refused("this clone is already in a room (see"
                      f" {home / store.LOCAL_CONFIG}); bullpen machines shows its state")
    name = machines.validate_name(args.machine) if args.machine else machines.local_name(home)
    from board.room import prepare_home

    prepare_home(home)
    ticket = pairing.request_to_join(args.url, name)
    pgpass = pairing.remember_password(ticket.url, ticket.password)
    store.write_local(home, store=ticket.url, machine=name, machine_id=ticket.machine_id)
    print(f"asked to join as machine {name} (id {ticket.machine_id}; password kept in"
          f" {pgpass})")
    print(f"pairing code: {ticket.code}")
    print("on the room's machine, within the hour:"
          f" bullpen machines approve {name} {ticket.code}")
    return 0


def _in_the_room(home) -> bool:
    """Whether this clone's own login opens its room (a request that was never approved,
    expired or spent by wrong codes may be filed again)."""
    from board import postgres

    url = store.choose(home).url
    if url is None:
        return False
    try:
        postgres.connect(url, migrate=False).close()
    except Refused:
        return False
    return True


def invite_partner(args: argparse.Namespace) -> int:
    with room() as current:
        if not current.caller.is_operator:
            raise Refused("only the operator can invite partners")
        name = machines.register_here(current.conn, current.home, owner=True)
        role, password = pairing.invite(current.conn)
        url = pairing.guest_url(pairing.room_url(current.conn), role, password, args.host)
        origin = current_origin(current.home.parent)
        still_open = guest_limits.open_doors(current.conn)  # what only a superuser closes
    print(f"this room is ready for partners: guest login {role} (it may only ask to"
          " join; this rotates its password)")
    print("a partner runs, in a clone of this repository"
          + (f" ({origin}):" if origin else ":"))
    print(f"  bullpen room join '{url}' --machine NAME")
    print(f"then tells you the code it prints, and you (machine {name}) run:")
    print("  bullpen machines approve NAME CODE")
    for what, fix in still_open:
        print(f"warning: {what}; fix: {fix}")
    return 0


def current_origin(root) -> str | None:
    """The clone URL partners use, when this repository has an `origin` remote."""
    import subprocess

    found = subprocess.run(["git", "-C", str(root), "remote", "get-url", "origin"],
                           capture_output=True, text=True)
    return found.stdout.strip() or None if found.returncode == 0 else None


def list_machines(args: argparse.Namespace) -> int:
    with room() as current:
        known = machines.all_machines(current.conn)
        waiting = pairing.pending(current.conn)
    if args.json:
        print_json({"machines": [m.to_json() for m in known],
                    "pending": [r.to_json() for r in waiting]})
        return 0
    if not known and not waiting:
        print("no machines yet: on another machine, bullpen room join URL")
        return 0
    print_table(["machine", "state", "heartbeat"],
                [(m.name, m.state, "ok" if m.reachable else "unreachable") for m in known]
                + [(r.machine, "pending approval", "-") for r in waiting])
    return 0


def approve_machine(args: argparse.Namespace) -> int:
    code = pairing.normalise(args.code)  # bad input before anything is opened
    with room() as current:
        if not current.caller.is_operator:
            raise Refused("only the operator can approve machines")
        name = pairing.approve(current.conn, current.caller.name,
                               machines.validate_name(args.name), code)
    print(f"machine {name} joined the room")
    return 0


def revoke_machine(args: argparse.Namespace) -> int:
    with room() as current:
        if not current.caller.is_operator:
            raise Refused("only the operator can revoke machines")
        pairing.revoke(current.conn, args.name)
    print(f"machine {args.name} can no longer use the room")
    return 0


def grant_machine(args: argparse.Namespace) -> int:
    from board.machine_grants import set_grant

    name = machines.validate_name(args.name)
    with room() as current:
        if not current.caller.is_operator:
            raise Refused("only the operator can grant powers to another machine")
        pairing.room_url(current.conn)  # a room on SQLite has no other machine to grant
        powers = set_grant(current.home, name, args.powers)
        granted = ", ".join(powers) or "nothing"
        audit.record(current.conn, current.caller.name, "grant machine", name, DONE,
                     f"machines_may: [{granted}]")
    print(grant_line(name, powers))
    return 0


def grant_line(name: str, powers: tuple[Power, ...]) -> str:
    """What a machine grant now allows, in plain words ("may stop and restart this
    machine's sessions"; "may remove their worktrees")."""
    who = f"the operator of machine {name}"
    if not powers:
        return f"{who} may no longer act on this machine's sessions"
    verbs = [power.value for power in (Power.STOP, Power.RESTART) if power in powers]
    acts = [f"{' and '.join(verbs)} this machine's sessions"] if verbs else []
    if Power.REMOVE in powers:
        acts.append("remove their worktrees" if verbs
                    else "remove the worktrees of this machine's sessions")
    return f"{who} may {' and '.join(acts)}"


def refuse_machine(args: argparse.Namespace) -> int:
    if bool(args.name) == args.waiting:
        raise BadInput("name one waiting machine, or give --waiting for all of them")
    name = machines.validate_name(args.name) if args.name else None
    with room() as current:
        if not current.caller.is_operator:
            raise Refused("only the operator can refuse machines")
        refused = pairing.refuse(current.conn, name)
        audit.record(current.conn, current.caller.name, "refuse join", name or "waiting",
                     DONE, ", ".join(refused) or "none waiting")
    if not refused:
        print("no machine is waiting for approval")
    else:
        print(f"refused {len(refused)} waiting request(s): {', '.join(refused)}; a machine"
              " refused by mistake runs bullpen room join again")
    return 0


def migrate_room(args: argparse.Namespace) -> int:
    from workers.room import store_move

    home = room_home()
    if args.to == store.StoreKind.SQLITE:
        copied = store_move.to_sqlite(home)
        where = "the room's SQLite file"
    elif store.is_url(args.to):
        copied = store_move.to_postgres(home, args.to)
        where = store.redact(args.to)
    else:
        raise BadInput(f"--to {store.redact(args.to)!r}: give a postgresql:// URL or 'sqlite'")
    print(f"copied {sum(copied.values())} rows in {len(copied)} tables to {where};"
          " the room uses it from now on")
    return 0
