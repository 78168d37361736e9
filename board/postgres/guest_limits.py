"""What no login may do in the room's database beyond what pairing gives it (issue 30).

PostgreSQL lets every login make temporary tables (PUBLIC has TEMP on each database) and
large objects (PUBLIC may execute `lo_create` and its kin): the shared guest login could
fill the server's disk with 20 MB objects that outlive it, or with temp tables while it
stays connected. No role of bullpen's uses either.

What the room's owner can close, `room invite` closes: it owns the database, so it takes
TEMP from PUBLIC (the owner keeps it, as owner). The large-object functions belong to the
server's bootstrap superuser: taking them from PUBLIC in this database, like turning
`lo_compat_privileges` back off (off by default; on, anyone reads and writes anyone's
large objects), needs a superuser. On a server the room does not own, `open_doors` names
those, each with the SQL a superuser runs, and `bullpen doctor` says so.
"""

from __future__ import annotations

from contextlib import suppress

from board.connection import Connection
from board.errors import Refused

# Every function that makes a large object (lo_import also needs pg_read_server_files).
LARGE_OBJECT_MAKERS = ("lo_creat(integer)", "lo_create(oid)", "lo_from_bytea(oid, bytea)",
                       "lo_import(text)", "lo_import(text, oid)")
_MAKERS = ", ".join(LARGE_OBJECT_MAKERS)
REVOKE_TEMP = ("DO $$ BEGIN EXECUTE format('REVOKE TEMP ON DATABASE %I FROM PUBLIC',"
               " current_database()); END $$")
REVOKE_LARGE_OBJECTS = f"REVOKE EXECUTE ON FUNCTION {_MAKERS} FROM PUBLIC"


def close_doors(conn: Connection) -> list[tuple[str, str]]:
    """Take TEMP and (when this role is a superuser) the large-object makers from PUBLIC
    in the room's database; returns `open_doors` after."""
    for statement in (REVOKE_TEMP, REVOKE_LARGE_OBJECTS):
        # A role that may not only gets a warning or a refusal: what stays open is said.
        with suppress(Refused):
            conn.execute(statement)
    return open_doors(conn)


def open_doors(conn: Connection) -> list[tuple[str, str]]:
    """What every login, the guest among them, may still do in the room's database: each
    as (what, the fix); [] when nothing."""
    database = conn.execute("SELECT current_database()").fetchone()[0]
    found = []
    if conn.execute("SELECT has_database_privilege('public', current_database(), 'TEMP')"
                    ).fetchone()[0]:
        found.append((f"any login, the guest's too, may create temp tables in {database}",
                      f"bullpen room invite (as the database's owner), or REVOKE TEMP ON"
                      f" DATABASE {database} FROM PUBLIC"))
    if any(conn.execute("SELECT has_function_privilege('public', CAST(? AS text), 'EXECUTE')",
                        (name,)).fetchone()[0] for name in LARGE_OBJECT_MAKERS):
        found.append((f"any login, the guest's too, may store large objects in {database}"
                      " (only a superuser can take that away)",
                      f"a superuser runs, in database {database}: {REVOKE_LARGE_OBJECTS}"))
    if conn.execute("SELECT current_setting('lo_compat_privileges')").fetchone()[0] == "on":
        found.append(("lo_compat_privileges is on: any login reads and writes every large"
                      " object", "a superuser sets it off: in postgresql.conf, or ALTER"
                      f" DATABASE {database} RESET lo_compat_privileges"))
    return found


def guest_exists(conn: Connection) -> bool:
    """Whether `room invite` made the room's guest login."""
    return bool(conn.execute("SELECT 1 FROM pg_roles WHERE rolname = bullpen_guest_role()"
                             ).fetchone())
