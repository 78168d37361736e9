"""`bullpen doctor` on a room in PostgreSQL: the server, the schema, this machine's place
in the room (its name, id, role and state) and every machine's coordinator heartbeat.

Read-only like the rest of doctor: it opens the database without migrating it.
"""

from __future__ import annotations

import time
from pathlib import Path

from board import machines, store
from board.errors import BullpenError, Refused, Revoked
from board.postgres import connect, guest_limits, schema_version
from board.postgres.connection import PgConnection
from board.postgres.schema import MIGRATIONS
from workers.room.findings import Finding


def postgres_store(home: Path) -> tuple[PgConnection | None, list[Finding]]:
    """The store findings, and the open connection when the room can be read."""
    choice = store.choose(home)
    name = machines.local_name(home)
    if choice.url is None:  # an SQLite room: doctor's other checks read it
        return None, []
    try:
        conn = connect(choice.url, migrate=False)
    except Revoked as error:  # approving again needs a new join request, with its code
        return None, [Finding("store", False, str(error),
                              "ask the room's operator for its join URL (bullpen room invite"
                              f" on the room's machine), run bullpen room join URL --machine"
                              f" {name} here, and have them approve the code it prints")]
    except Refused as error:  # the server answered: this machine is not (yet) let in
        return None, [Finding("store", False, str(error),
                              f"on the room's machine: bullpen machines approve {name} CODE")]
    except BullpenError as error:
        return None, [Finding("store", False, f"{choice.shown} is not reachable: {error}",
                              "start the server or fix store: in .bullpen/local.yaml")]
    found = [_schema(conn, choice.shown)]
    try:
        found.append(_this_machine(conn, home, name))
        found += _heartbeats(conn, name)
        found += _guest_limits(conn)
    except BullpenError as error:
        found.append(Finding("machine", False, f"cannot read the room: {error}",
                             f"on the room's machine: bullpen machines approve {name} CODE"))
        conn.close()
        return None, found
    return conn, found


def _schema(conn: PgConnection, shown: str) -> Finding:
    version = schema_version(conn)
    fine = version == len(MIGRATIONS)
    return Finding("store", fine, f"PostgreSQL {shown} reachable, schema {version} of"
                   f" {len(MIGRATIONS)}", None if fine else
                   "upgrade bullpen; the room's owner machine migrates it at its next start")


def _this_machine(conn: PgConnection, home: Path, name: str) -> Finding:
    role = machines.current_role(conn)
    row = machines.listed(conn, name)
    own_id = machines.local_id(home)
    what = f"this machine is {name} (id {own_id or 'none yet'}, role {role})"
    if row is None:
        return Finding("machine", True, f"{what}; not in the machine list yet (bullpen up"
                       " adds it)")
    listed_id, state = row
    if listed_id is not None and listed_id != own_id:
        return Finding("machine", False, f"{what}; that name belongs to another machine"
                       f" (id {listed_id})", "bullpen room join URL --machine NAME")
    if state != "approved":
        return Finding("machine", False, f"{what}; {state}",
                       f"on the room's machine: bullpen machines approve {name} CODE")
    return Finding("machine", True, f"{what}; approved")


def _heartbeats(conn: PgConnection, here: str) -> list[Finding]:
    now = time.time()
    found = []
    for machine in machines.all_machines(conn):
        if machine.state != "approved":
            continue
        if machine.beat_at is None:
            found.append(Finding("heartbeat", True, f"{machine.name}: no coordinator yet"))
        elif machine.reachable:
            found.append(Finding("heartbeat", True, f"{machine.name}: coordinator beating"
                                 f" ({now - machine.beat_at:.0f} s ago)"))
        else:
            fix = "bullpen up" if machine.name == here else f"bullpen up on {machine.name}"
            found.append(Finding("heartbeat", machine.name != here,
                                 f"{machine.name}: last beat {now - machine.beat_at:.0f} s"
                                 " ago: its sessions show unreachable", fix))
    return found


def _guest_limits(conn: PgConnection) -> list[Finding]:
    """What the guest login (once there is one) may do beyond asking to join."""
    if not guest_limits.guest_exists(conn):
        return []
    still = guest_limits.open_doors(conn)
    return [Finding("guest", False, what, fix) for what, fix in still] or [
        Finding("guest", True, "the guest login may only ask to join")]
