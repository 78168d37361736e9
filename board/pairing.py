"""Joining a room by pairing, default deny (board/postgres/pairing_sql.py holds the rules
the database enforces, and who may do what).

The owner prepares the room (`invite`): a guest login that may file join requests and
nothing else. A new machine files one (`request_to_join`) with the hash of an 8-character
code from a 32-character alphabet without 0/O/1/I, drawn with `secrets`, and the SCRAM
verifier of a password it drew: the password never leaves the machine. The operator on an
approved machine approves the name and code once (`approve`): only then does the
machine's role exist. Codes expire after an hour and are single use; wrong ones spend
only the request of the name they were typed for.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlencode

from board.connection import Connection
from board.db import is_postgres, write
from board.errors import BadInput, NotFound, Refused
from board.models import iso
from board.postgres import guest_limits
from board.postgres.connection import PgConnection
from board.postgres.pairing_sql import MAX_WAITING, MAX_WRONG_CODES, PAIRING_TTL
from board.records import record
from board.vocabulary import Approval, JoinState

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, no 1/I: read aloud safely
CODE_LENGTH = 8


SCRAM_ITERATIONS = 4096  # PostgreSQL's own default


@record(frozen=True)
class JoinTicket:
    machine: str
    machine_id: str  # the machine's stable identity in the room (its role is made of it)
    role: str
    password: str  # goes to the pgpass file only
    code: str
    url: str  # the room as this machine's role, without the password


@record(frozen=True)
class JoinRequest:
    machine: str
    state: str
    created_at: float

    def to_json(self) -> dict:
        return {"machine": self.machine, "state": self.state,
                "created_at": iso(self.created_at)}


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normalise(code: str) -> str:
    """The code as typed (any case, spaces or dashes) in its stored form, or BadInput."""
    cleaned = "".join(code.split()).replace("-", "").upper()
    if len(cleaned) != CODE_LENGTH or any(char not in ALPHABET for char in cleaned):
        raise BadInput(f"{code!r} is not a pairing code: {CODE_LENGTH} characters from"
                       f" {ALPHABET}")
    return cleaned


def code_hash(code: str) -> str:
    return hashlib.sha256(normalise(code).encode()).hexdigest()


def scram_verifier(password: str, salt: bytes | None = None) -> str:
    """PostgreSQL's SCRAM-SHA-256 verifier of `password` (what `CREATE ROLE … PASSWORD`
    stores when given it): the server can check a login, nobody can read the password."""
    salt = secrets.token_bytes(16) if salt is None else salt
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, SCRAM_ITERATIONS)
    client_key = hmac.new(salted, b"Client Key", hashlib.sha256).digest()
    server_key = hmac.new(salted, b"Server Key", hashlib.sha256).digest()

    def b64(data: bytes) -> str:
        return base64.b64encode(data).decode()

    return (f"SCRAM-SHA-256${SCRAM_ITERATIONS}:{b64(salt)}"
            f"${b64(hashlib.sha256(client_key).digest())}:{b64(server_key)}")


def request_to_join(url: str, machine: str) -> JoinTicket:
    """File this machine's join request through the guest login at `url`; returns the
    code to show and the password of the role approval will make."""
    import psycopg

    from board import postgres

    password = secrets.token_urlsafe(24)
    code = new_code()
    guest = postgres.connect(url, migrate=False)
    try:
        row = guest.execute("SELECT * FROM bullpen_request_join(?, ?, ?)",
                            (machine, code_hash(code), scram_verifier(password))).fetchone()
    except psycopg.errors.UndefinedFunction:
        raise BadInput("that database is not a bullpen room ready for partners (on the"
                       " room's machine, run bullpen room invite)") from None
    except psycopg.errors.DuplicateObject:
        raise Refused(f"a machine named {machine!r} is already in the room; pick another"
                      " name with --machine NAME") from None
    except psycopg.errors.ConfigurationLimitExceeded:
        raise Refused(f"{MAX_WAITING} machines are already waiting for approval; ask the"
                      " room's operator (bullpen machines refuse --waiting clears them)"
                      ) from None
    finally:
        guest.close()
    return JoinTicket(machine, row["machine_id"], row["role"], password, code,
                      url_as(url, row["role"]))


def invite(conn: Connection) -> tuple[str, str]:
    """Make (or re-key) the room's guest login; returns its role and new password. Only
    the room's owner may: the role needs CREATEROLE."""
    import psycopg

    _require_shared(conn)
    password = secrets.token_urlsafe(18)
    try:
        role = conn.execute("SELECT bullpen_invite(?)",
                            (scram_verifier(password),)).fetchone()[0]
    except (psycopg.errors.InsufficientPrivilege, Refused):
        raise Refused("only the role that owns the room's database can invite partners (it"
                      " needs CREATEROLE); run this on the room's first machine") from None
    guest_limits.close_doors(conn)  # no temp tables, and large objects if it may
    _end_connections(conn, role)
    return role, password


def _end_connections(conn: Connection, role: str) -> None:
    """End `role`'s open connections: a new password does not close them, and whoever
    held the old one could go on filing requests (needs pg_signal_backend; else they last
    until they close, at most GUEST_CONNECTIONS of them)."""
    with contextlib.suppress(Refused):  # the store's word for insufficient privilege
        conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                     " WHERE usename = ? AND pid <> pg_backend_pid()", (role,)).fetchall()


def url_as(url: str, user: str) -> str:
    """The same database as `url`, as `user`, with no password in it."""
    from psycopg.conninfo import conninfo_to_dict

    params = {key: str(value) for key, value in conninfo_to_dict(url).items()
              if key not in ("password", "dbname", "user")}
    database = conninfo_to_dict(url).get("dbname", "")
    return f"postgresql:///{database}?" + urlencode({**params, "user": user})


def guest_url(url: str, role: str, password: str, host: str | None = None) -> str:
    """The URL a partner joins through: the guest login at the room's database, reached
    at `host` (default: the host in `url`, over TCP)."""
    from urllib.parse import quote

    from psycopg.conninfo import conninfo_to_dict

    info = conninfo_to_dict(url)
    where = host or str(info.get("host") or "localhost")
    if where.startswith("/"):  # a unix socket: partners on other machines need an address
        where = "localhost"
    port = info.get("port") or "5432"
    return (f"postgresql://{quote(role)}:{quote(password, safe='')}@{where}:{port}"
            f"/{quote(str(info.get('dbname', '')))}")


def remember_password(url: str, password: str,
                      env: Mapping[str, str] | None = None) -> Path:
    """Add this role's password to the pgpass file (PGPASSFILE, else ~/.pgpass, mode 600),
    where libpq finds it; the URL in the local config never holds it."""
    from psycopg.conninfo import conninfo_to_dict

    env = os.environ if env is None else env
    path = Path(env.get("PGPASSFILE") or Path.home() / ".pgpass")
    info = conninfo_to_dict(url)

    def field(value: object) -> str:
        return str(value).replace("\\", "\\\\").replace(":", "\\:")

    host = info.get("host") or "localhost"
    line = ":".join(field(part) for part in (host, info.get("port") or "5432",
                                              info.get("dbname", "*"), info["user"], password))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a") as handle:
        handle.write(line + "\n")
    os.chmod(path, 0o600)  # libpq ignores a pgpass file others can read
    return path


def _require_shared(conn: Connection) -> PgConnection:
    if not is_postgres(conn):
        raise BadInput("this room is on SQLite, on one machine; move it to PostgreSQL first"
                       " (bullpen room migrate --to URL)")
    return conn


def room_url(conn: Connection) -> str:
    """The URL of the PostgreSQL room `conn` is open on (BadInput on SQLite)."""
    return _require_shared(conn).url


def approve(conn: Connection, approver: str, machine: str, code: str) -> str:
    """Let `machine`, which showed `code`, into the room; returns its name."""
    _require_shared(conn)
    shown = normalise(code)
    outcome = conn.execute("SELECT bullpen_approve(?, ?, ?)",
                           (machine, code_hash(code), approver)).fetchone()[0]
    if outcome.startswith(f"{Approval.APPROVED}:"):
        return outcome.removeprefix(f"{Approval.APPROVED}:")
    again = "; run bullpen room join again on that machine"
    raise {
        Approval.NONE: NotFound(f"no machine named {machine!r} is waiting for approval; see"
                         " bullpen machines"),
        Approval.WRONG: BadInput(f"{shown} is not the code machine {machine} showed; check it"
                          f" ({MAX_WRONG_CODES} wrong codes spend its request)"),
        Approval.SPENT: Refused(f"machine {machine}'s request was spent by wrong codes{again}"),
        Approval.USED: Refused(f"code {shown} was already used; codes are single use"),
        Approval.EXPIRED: Refused(f"code {shown} expired (codes last {PAIRING_TTL // 60} minutes)"
                           f"{again}"),
        Approval.TAKEN: Refused(f"a machine named {machine!r} is already in the room{again}"
                         " with another --machine NAME"),
    }[outcome]


def revoke(conn: Connection, machine: str) -> None:
    """Take the room away from `machine`: its role loses every right at once."""
    _require_shared(conn)
    if not conn.execute("SELECT bullpen_revoke(?)", (machine,)).fetchone()[0]:
        raise NotFound(f"unknown machine {machine!r}; see bullpen machines")


def refuse(conn: Connection, machine: str | None) -> list[str]:
    """Refuse the waiting join requests of `machine` (None: every waiting one, after a
    flood); returns the names refused. Their machines may ask again with new codes."""
    _require_shared(conn)
    which, values = ("", ()) if machine is None else (" AND machine = ?", (machine,))
    with write(conn):
        rows = conn.execute(f"UPDATE join_requests SET state = ? WHERE state = ?{which}"
                            " RETURNING machine",
                            (JoinState.REFUSED, JoinState.PENDING, *values)).fetchall()
    if machine is not None and not rows:
        raise NotFound(f"no machine named {machine!r} is waiting for approval; see"
                       " bullpen machines")
    return sorted({row["machine"] for row in rows})


def pending(conn: Connection) -> list[JoinRequest]:
    """Join requests waiting for approval (codes not shown: only hashes are stored)."""
    if not is_postgres(conn):
        return []
    rows = conn.execute(
        "SELECT machine, state, created_at FROM join_requests WHERE state = ?"
        " ORDER BY created_at", (JoinState.PENDING,)).fetchall()
    return [JoinRequest(row["machine"], row["state"], row["created_at"]) for row in rows]
