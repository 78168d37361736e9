"""Joining a room by pairing, default deny (board/postgres/schema.py holds the rules the
database enforces).

A new machine asks to join (`request_to_join`): it gets its own database role, which
can insert its join request and nothing else, and an 8-character code from a
32-character alphabet without 0/O/1/I, drawn with `secrets`. The operator on any
approved machine approves the code once (`approve`); codes expire after an hour, are
single use, and wrong ones are counted and, past a few an hour, lock approvals.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from board.connection import Connection
from board.db import is_postgres
from board.errors import BadInput, NotFound, Refused
from board.models import iso
from board.postgres.schema import MAX_WRONG_CODES, PAIRING_TTL
from board.vocabulary import JoinState

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, no 1/I: read aloud safely
CODE_LENGTH = 8


@dataclass(frozen=True)
class JoinTicket:
    machine: str
    role: str
    password: str  # goes to the pgpass file only
    code: str
    url: str  # the room as this machine's role, without the password


@dataclass(frozen=True)
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


def request_to_join(url: str, machine: str) -> JoinTicket:
    """Make this machine's role and its pending join request; returns the code to show."""
    import psycopg

    from board import postgres
    from board.postgres.connection import PgConnection, open_raw

    password = secrets.token_urlsafe(24)
    guest = postgres.connect(url, migrate=False)
    try:
        role = guest.execute("SELECT bullpen_request_role(?, ?)",
                             (machine, password)).fetchone()[0]
    except psycopg.errors.UndefinedFunction:
        raise BadInput("that database is not a bullpen room with pairing (start the room"
                       " there first; its owner needs the CREATEROLE right)") from None
    except psycopg.errors.DuplicateObject:
        raise Refused(f"machine {machine!r} is already in the room; pick another name"
                      " with --machine") from None
    finally:
        guest.close()
    code = new_code()
    own_url = url_as(url, role)
    own = PgConnection(open_raw(own_url, password=password), own_url)
    try:  # as the new role itself: this insert is all it may do
        own.execute("INSERT INTO join_requests (machine, code_hash) VALUES (?, ?)",
                    (machine, code_hash(code)))
    finally:
        own.close()
    return JoinTicket(machine, role, password, code, own_url)


def url_as(url: str, user: str) -> str:
    """The same database as `url`, as `user`, with no password in it."""
    from psycopg.conninfo import conninfo_to_dict

    params = {key: str(value) for key, value in conninfo_to_dict(url).items()
              if key not in ("password", "dbname", "user")}
    database = conninfo_to_dict(url).get("dbname", "")
    return f"postgresql:///{database}?" + urlencode({**params, "user": user})


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


def _require_shared(conn: Connection) -> None:
    if not is_postgres(conn):
        raise BadInput("this room is on SQLite, on one machine; move it to PostgreSQL first"
                       " (bullpen room migrate --to URL)")


def approve(conn: Connection, approver: str, code: str) -> str:
    """Let the machine that showed `code` into the room; returns its name."""
    _require_shared(conn)
    digest = code_hash(code)
    outcome = conn.execute("SELECT bullpen_approve(?, ?)", (digest, approver)).fetchone()[0]
    if outcome.startswith("approved:"):
        return outcome.removeprefix("approved:")
    shown = normalise(code)
    raise {
        "wrong": BadInput(f"no machine is waiting with code {shown}; check it (wrong codes"
                          f" are counted: {MAX_WRONG_CODES} an hour lock approvals)"),
        "used": Refused(f"code {shown} was already used; codes are single use"),
        "expired": Refused(f"code {shown} expired (codes last {PAIRING_TTL // 60} minutes);"
                           " run bullpen room join again on that machine"),
        "locked": Refused(f"too many wrong codes in the last {PAIRING_TTL // 60} minutes;"
                          " approvals are refused until they age out"),
    }[outcome]


def revoke(conn: Connection, machine: str) -> None:
    """Take the room away from `machine`: its role loses every right at once."""
    _require_shared(conn)
    if not conn.execute("SELECT bullpen_revoke(?)", (machine,)).fetchone()[0]:
        raise NotFound(f"unknown machine {machine!r}; see bullpen machines")


def pending(conn: Connection) -> list[JoinRequest]:
    """Join requests waiting for approval (codes not shown: only hashes are stored)."""
    if not is_postgres(conn):
        return []
    rows = conn.execute(
        "SELECT machine, state, created_at FROM join_requests WHERE state = ?"
        " ORDER BY created_at", (JoinState.PENDING,)).fetchall()
    return [JoinRequest(row["machine"], row["state"], row["created_at"]) for row in rows]
