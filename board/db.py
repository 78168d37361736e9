"""Opening the store: WAL, busy timeout, numbered migrations, short write transactions."""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from board import store
from board.connection import Connection
from board.errors import BadInput, StoreFault
from board.home import DB_NAME
from board.schema import APPLICATION_ID, MIGRATIONS

TYPE_CHECKING = False  # not typing's: every store opening would pay for importing it
if TYPE_CHECKING:
    from typing import TypeGuard

    from board.postgres.connection import PgConnection

BUSY_TIMEOUT_MS = 10_000
# SQLite's own busy handler pauses 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, then 100 ms
# between tries: a writer that lost the lock a few times sleeps on long after it is free,
# and with ten agents sending notes at once the unluckiest note waited most of a second
# (bench/note_bench.py). The write lock is tried here instead, at these pauses (doubling).
FIRST_LOCK_PAUSE = 0.0005  # seconds
LONGEST_LOCK_PAUSE = 0.004
# A writer somebody is waiting on (an inbox marking what it read) tries at this pause
# and never backs off: it does not lose the lock to ten senders looping back for the
# next note (send -> inbox p99 69-158 ms against 24-33 ms, bench/note_bench.py).
WAITED_ON_PAUSE = 0.0001


def connect(path: Path | str) -> Connection:
    """Open the room store whose SQLite file is `path` (or a postgresql:// URL).

    The room's choice wins (board.store: BULLPEN_DATABASE_URL or `store:` in the home's
    local config), so every caller that opens `<home>/bullpen.db` follows the room to
    PostgreSQL. The PostgreSQL connection speaks the same SQL (board.postgres).
    """
    url = _postgres_url(path)
    if url is not None:
        from board import postgres  # psycopg is imported only by rooms that use it

        return postgres.connect(url)
    return connect_sqlite(path)


def _postgres_url(path: Path | str) -> str | None:
    if isinstance(path, str) and store.is_url(path):
        return path
    path = Path(path)
    if path.name != DB_NAME:
        return None
    choice = store.choose(path.parent)
    return choice.url if choice.kind == store.StoreKind.POSTGRESQL else None


def is_postgres(conn: Connection) -> TypeGuard[PgConnection]:
    """True for a connection to a PostgreSQL room (board.postgres.PgConnection)."""
    return getattr(conn, "dialect", "sqlite") == "postgresql"


def connect_sqlite(path: Path | str) -> sqlite3.Connection:
    """Open (creating if needed) the SQLite database at `path`, migrated to the latest
    schema, whatever store the room has chosen (`room migrate` reads both).

    Refuses a file that belongs to another program or to a newer bullpen.
    """
    try:
        conn = sqlite3.connect(str(path), isolation_level=None,
                               timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
    except sqlite3.OperationalError as error:  # a directory in the way, no permission, ...
        raise BadInput(f"cannot open {path} ({error}); check BULLPEN_HOME") from None
    except OSError as error:  # a path the OS refuses (too long, ...)
        raise BadInput(f"cannot open {path} ({error.strerror}); check BULLPEN_HOME") from None
    conn.row_factory = sqlite3.Row
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        _check_ownership(conn, path)
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        _migrate(conn)
    except sqlite3.DatabaseError as error:
        conn.close()
        if is_fault(error):  # full, read-only, damaged: the file may well be ours
            raise StoreFault(describe_fault(error, path)) from None
        if _ours(path):  # our header, yet SQLite cannot read it: its WAL is what broke
            raise StoreFault(f"the store {path} is damaged ({error}): its write-ahead log"
                             " (bullpen.db-wal) may be cut short or overwritten;"
                             " run bullpen doctor") from None
        raise BadInput(f"{path} is not a bullpen database ({error})") from None
    except BaseException:
        conn.close()
        raise
    return conn


def _ours(path: Path | str) -> bool:
    """Whether the file's own header says it is a bullpen store (SQLite's magic, and our
    application id at offset 68), read without SQLite."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(72)
    except OSError:
        return False
    return (header.startswith(b"SQLite format 3\0")
            and int.from_bytes(header[68:72], "big") == APPLICATION_ID)


# What each SQLite failure means to the user, and what to do about it.
_FAULTS = (
    ("full", "is full ({error}); free space on its disk, then retry"),
    ("readonly", "is read-only ({error}); make it writable (mount, permissions), then retry"),
    ("read-only", "is read-only ({error}); make it writable (mount, permissions), then retry"),
    ("malformed", "is damaged ({error}); run bullpen doctor"),
    ("i/o error", "cannot be read or written ({error}): its disk, or its write-ahead log"
                  " (bullpen.db-wal, cut short or overwritten?); run bullpen doctor"),
    ("unable to open", "cannot be opened ({error}); check its directory, then retry"),
    ("locked", "is busy ({error}); retry in a moment"),
)


def is_fault(error: BaseException) -> bool:
    """A store fault (disk full, read-only, I/O, damage, busy), not a wrong file."""
    text = str(error).lower()
    return isinstance(error, sqlite3.OperationalError) or any(
        key in text for key, _ in _FAULTS)


def describe_fault(error: BaseException, path: Path | str | None = None) -> str:
    """One line saying what is wrong with the store and what to do."""
    text = " ".join(str(error).split())
    where = f"the store {path}" if path else "the store"
    for key, advice in _FAULTS:
        if key in text.lower():
            return f"{where} {advice.format(error=text)}"
    return f"{where} failed ({text})"


def _check_ownership(conn: sqlite3.Connection, path: Path | str) -> None:
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if app_id == 0:
        has_tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if has_tables:
            raise BadInput(f"{path} is not a bullpen database; move it aside or set BULLPEN_HOME")
        return
    if app_id != APPLICATION_ID:
        raise BadInput(f"{path} is not a bullpen database; move it aside or set BULLPEN_HOME")
    if version > len(MIGRATIONS):
        raise BadInput(
            f"{path} uses schema {version}, newer than this bullpen knows ({len(MIGRATIONS)});"
            " upgrade bullpen"
        )


def schema_version(conn: Connection) -> int:
    """The number of the last migration applied to the store."""
    if is_postgres(conn):
        from board import postgres

        return postgres.schema_version(conn)
    return conn.execute("PRAGMA user_version").fetchone()[0]


def _migrate(conn: Connection) -> None:
    if schema_version(conn) == len(MIGRATIONS):
        return
    with write(conn):
        # Re-read inside the write lock: another process may have migrated meanwhile.
        current = schema_version(conn)
        for number, script in enumerate(MIGRATIONS[current:], start=current + 1):
            for statement in _statements(script):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number}")
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")


def _statements(script: str) -> Iterator[str]:
    """Split a migration into statements (executescript would commit our transaction)."""
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            if pending.strip():
                yield pending
            pending = ""
    if pending.strip():
        yield pending


def _begin_immediate(conn: Connection, waited_on: bool) -> None:
    """BEGIN IMMEDIATE, waiting for the write lock up to BUSY_TIMEOUT_MS at short pauses."""
    if is_postgres(conn):  # its lock waits are the server's
        conn.execute("BEGIN IMMEDIATE")
        return
    conn.execute("PRAGMA busy_timeout = 0")
    try:
        pause = WAITED_ON_PAUSE if waited_on else FIRST_LOCK_PAUSE
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                conn.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as error:
                code = getattr(error, "sqlite_errorcode", None)  # None: not SQLite's own
                if code is None or code & 0xFF != sqlite3.SQLITE_BUSY \
                        or time.monotonic() >= deadline:
                    raise  # "database is locked", as SQLite's own wait ends
            time.sleep(pause)
            if not waited_on:
                pause = min(pause * 2, LONGEST_LOCK_PAUSE)
    finally:
        # Everything else (a read meeting a recovery, the first open) waits SQLite's way.
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")


@contextmanager
def write(conn: Connection, *, waited_on: bool = False) -> Iterator[Connection]:
    """One short write transaction that takes the write lock up front (no upgrade deadlocks).

    `waited_on`: a reader is waiting for this write to finish; it takes the lock first.
    """
    if conn.in_transaction:  # nested: the outer transaction commits
        yield conn
        return
    _begin_immediate(conn, waited_on)
    try:
        yield conn
    except BaseException:
        # SQLite may have rolled back already (I/O error, a damaged WAL): then ROLLBACK
        # fails ("no transaction is active") and would hide the error that says why.
        if conn.in_transaction:
            with contextlib.suppress(Exception):
                conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
