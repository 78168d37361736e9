"""Machines of a room: where each session runs and whether that machine is still there.

Each machine that holds a clone of the repository runs its own coordinator for its own
sessions. The coordinator beats (`beat`) every BEAT_EVERY seconds; a machine whose last
beat is older than UNREACHABLE_AFTER shows its sessions as `unreachable`, never `idle`:
nobody can type into them, and their notes wait, durable, until it is back.
Heartbeats compare clocks of different machines: keep them in sync (NTP).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Mapping
from pathlib import Path

from board import store
from board.connection import Connection
from board.db import is_postgres, write
from board.errors import BadInput, Refused
from board.models import iso
from board.patterns import lazy
from board.records import record
from board.vocabulary import SessionStatus

BEAT_EVERY = 2.0  # seconds between a coordinator's heartbeats
UNREACHABLE_AFTER = 6.0  # seconds without a beat before a machine is unreachable
UNREACHABLE = SessionStatus.UNREACHABLE  # what ls and the dashboard show for its sessions
MACHINE_NAME = lazy(r"^[a-z][a-z0-9-]{0,39}$")


@record(frozen=True)
class Machine:
    name: str
    state: str  # approved | pending | revoked (board.pairing)
    role: str | None
    beat_at: float | None
    reachable: bool

    def to_json(self) -> dict:
        return {"name": self.name, "state": self.state, "role": self.role,
                "beat_at": iso(self.beat_at), "reachable": self.reachable}


def validate_name(name: str) -> str:
    if not MACHINE_NAME.match(name or ""):
        raise BadInput(f"invalid machine name {name!r}: use 1-40 lower-case letters, digits"
                       " or '-', starting with a letter")
    return name


def local_name(home: Path, env: Mapping[str, str] | None = None) -> str:
    """This machine's name in the room: `machine:` in the local config, else the host's."""
    configured = store.read_local(home).get("machine")
    if configured is not None:
        return validate_name(str(configured))
    host = re.sub(r"[^a-z0-9-]+", "-", os.uname().nodename.split(".")[0].lower()).strip("-")
    if not host or not host[0].isalpha():
        host = f"m-{host}" if host else "machine"
    return host[:40]


OWNER_KEY = "owner_machine"  # meta: the machine that owns the room (plan sessions without
# `machine:` run there)


def local_id(home: Path) -> str | None:
    """This machine's stable id in its room (made at join or invite), None before."""
    value = store.read_local(home).get("machine_id")
    return None if value is None else str(value)


def register_here(conn: Connection, home: Path, *, owner: bool = False) -> str:
    """Claim this machine's name (`claim`) and record its database role; with `owner`,
    this machine also becomes the room's owner machine unless one is recorded (plan
    sessions without `machine:` run there). Returns its name."""
    name = claim(conn, home)
    with write(conn):
        if is_postgres(conn):
            conn.execute("UPDATE machines SET role = coalesce(role, current_user)"
                         " WHERE name = ?", (name,))
        if owner:
            conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)"
                         " ON CONFLICT(key) DO NOTHING", (OWNER_KEY, name))
    return name


def claim(conn: Connection, home: Path) -> str:
    """This machine's name, once it is sure no other machine of a shared room holds it:
    the machine list maps each name to one stable id, so two clones that both call
    themselves `vm` (cloned VMs share host names) never act on each other's sessions. On
    first use the name is claimed under this machine's id (made now if it has none)."""
    name = local_name(home)
    if not is_postgres(conn):
        return name
    own_id = local_id(home)
    if taken_elsewhere(conn, home):
        raise Refused(f"machine name {name!r} belongs to another machine of this room;"
                      " join under a name of this machine's own: bullpen room join URL"
                      " --machine NAME")
    row = conn.execute("SELECT id FROM machines WHERE name = ?", (name,)).fetchone()
    if row is None or row["id"] is None:
        import secrets  # here: every `ls` and hook reads machines, few make one

        own_id = own_id or secrets.token_hex(6)
        with write(conn):
            conn.execute(
                "INSERT INTO machines (name, id, created_at) VALUES (?, ?, ?)"
                " ON CONFLICT(name) DO UPDATE SET id = excluded.id"
                " WHERE machines.id IS NULL", (name, own_id, time.time()))
        if conn.execute("SELECT id FROM machines WHERE name = ?",
                        (name,)).fetchone()["id"] != own_id:  # another claimed it meanwhile
            return claim(conn, home)
        store.write_local(home, machine=name, machine_id=own_id)
    return name


def taken_elsewhere(conn: Connection, home: Path) -> str | None:
    """This machine's name when another machine of a shared room holds it under its own
    id (this clone then runs none of that name's sessions), else None. Reads only."""
    if not is_postgres(conn):
        return None
    name = local_name(home)
    row = conn.execute("SELECT id FROM machines WHERE name = ?", (name,)).fetchone()
    held = row is not None and row["id"] is not None and row["id"] != local_id(home)
    return name if held else None


def listed(conn: Connection, name: str) -> tuple[str | None, str] | None:
    """(id, state) of machine `name` in the room's list, None when it is not there."""
    row = conn.execute("SELECT id, state FROM machines WHERE name = ?", (name,)).fetchone()
    return None if row is None else (row["id"], row["state"])


def current_role(conn: Connection) -> str | None:
    """The database role this connection logged in as (PostgreSQL), else None."""
    return conn.execute("SELECT current_user").fetchone()[0] if is_postgres(conn) else None


def owner_machine(conn: Connection) -> str | None:
    """The machine that owns the room, when one was recorded (invite, migrate)."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (OWNER_KEY,)).fetchone()
    return row[0] if row else None


def beat(conn: Connection, name: str, now: float | None = None) -> None:
    """Record that this machine's coordinator is alive (no event: nobody needs waking)."""
    now = time.time() if now is None else now
    with write(conn):
        conn.execute(
            "INSERT INTO machines (name, beat_at, created_at) VALUES (?, ?, ?)"
            " ON CONFLICT(name) DO UPDATE SET beat_at = excluded.beat_at", (name, now, now))


def stop_beating(conn: Connection, name: str) -> None:
    """This machine's coordinator stopped cleanly: no beat, rather than a recent one."""
    with write(conn):
        conn.execute("UPDATE machines SET beat_at = NULL WHERE name = ?", (name,))


def beats(conn: Connection) -> dict[str, float | None]:
    """Each machine's last heartbeat."""
    return {row[0]: row[1] for row in conn.execute("SELECT name, beat_at FROM machines")}


def is_reachable(beat_at: float | None, now: float | None = None) -> bool:
    now = time.time() if now is None else now
    return beat_at is not None and now - beat_at <= UNREACHABLE_AFTER


def all_machines(conn: Connection) -> list[Machine]:
    now = time.time()
    rows = conn.execute(
        "SELECT name, state, role, beat_at FROM machines ORDER BY name").fetchall()
    return [Machine(row["name"], row["state"], row["role"], row["beat_at"],
                    is_reachable(row["beat_at"], now)) for row in rows]


def shown_status(status: str, machine: str | None, here: str,
                 last_beats: Mapping[str, float | None], now: float | None = None) -> str:
    """A session's status as seen from machine `here`: its own coordinator's word, or
    `unreachable` when that coordinator stopped beating."""
    if machine is None or machine == here:
        return status
    return status if is_reachable(last_beats.get(machine), now) else UNREACHABLE
