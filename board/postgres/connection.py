"""A psycopg 3 connection that the board functions can use as they use sqlite3's.

The board's statements, rows and transactions keep their SQLite shape:
- `execute`/`executemany` take `?` or `:name` parameters; rows answer `row[0]` and
  `row["name"]`; an insert's cursor has `lastrowid` (through `RETURNING id`).
- The connection is in autocommit, like sqlite3's `isolation_level=None`: a statement
  outside a transaction commits alone.
- `BEGIN IMMEDIATE` (board.db.write) becomes `BEGIN` plus the room's transaction-scoped
  advisory lock: writers queue one at a time as on SQLite, readers never wait (MVCC),
  and each statement under the lock sees every earlier commit (read committed), so the
  board's read-then-write rules hold exactly as they do on SQLite.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from typing import Any

from board.connection import Params, Row
from board.errors import BullpenError, Refused, Revoked, StoreFault
from board.postgres.dialect import translate
from board.store import redact

WRITE_LOCK = 0x42554C4C  # "BULL": the room's one writer lock (pg_advisory_xact_lock)
CONNECT_TIMEOUT = 10  # seconds


@lru_cache(maxsize=512)
def _row_class(names: tuple[str, ...]) -> type:
    index = {name: position for position, name in enumerate(names)}

    class NamedRow(tuple):
        """A result row read by position or by column name, like sqlite3.Row."""

        __slots__ = ()

        def __getitem__(self, key):
            if isinstance(key, str):
                return tuple.__getitem__(self, index[key])
            return tuple.__getitem__(self, key)

        def keys(self) -> list[str]:
            return list(names)

    return NamedRow


def _rows(cursor: Any):
    """psycopg row factory making `NamedRow`s (the maker is the tuple subclass itself)."""
    if cursor.description is None:
        return tuple
    return _row_class(tuple(column.name for column in cursor.description))


def _params(params: Any) -> Any:
    """SQLite takes booleans as 0/1 in its INTEGER columns; PostgreSQL's BIGINT does not."""
    if params is None:
        return None
    if isinstance(params, Mapping):
        return {key: int(value) if isinstance(value, bool) else value
                for key, value in params.items()}
    return tuple(int(value) if isinstance(value, bool) else value for value in params)


class Cursor:
    """What the board reads from a statement: rows, `rowcount`, `lastrowid`
    (board.connection.Cursor)."""

    def __init__(self, cursor: Any, returned_id: bool) -> None:
        self._cursor = cursor
        self.rowcount: int = cursor.rowcount
        self.lastrowid: int | None = None
        if returned_id:
            row = cursor.fetchone()
            self.lastrowid = row[0] if row is not None else None

    @property
    def description(self) -> Any:
        return self._cursor.description

    def fetchone(self) -> Any:
        return self._cursor.fetchone() if self._cursor.description else None

    def fetchall(self) -> list[Row]:
        return self._cursor.fetchall() if self._cursor.description else []

    def __iter__(self) -> Iterator[Row]:
        return iter(self.fetchall())


class PgConnection:
    """The board's connection to a PostgreSQL room (see the module docstring); a
    board.connection.Connection."""

    dialect = "postgresql"

    def __init__(self, raw: Any, url: str) -> None:
        self.raw = raw
        self.url = url
        self.id_tables: frozenset[str] = frozenset()

    @property
    def in_transaction(self) -> bool:
        from psycopg.pq import TransactionStatus

        return self.raw.info.transaction_status != TransactionStatus.IDLE

    def execute(self, sql: str, params: Params | None = None, /) -> Cursor:
        """Run one statement written in the board's (SQLite) dialect."""
        if sql.strip().upper() == "BEGIN IMMEDIATE":
            # One round trip: both statements in one simple query (no parameters).
            return Cursor(self._run(f"BEGIN; SELECT pg_advisory_xact_lock({WRITE_LOCK})",
                                    None), False)
        text, returns_id = translate(sql, self.id_tables, params is not None, True)
        return Cursor(self._run(text, _params(params)), returns_id)

    def executemany(self, sql: str, rows: Iterable[Params], /) -> None:
        text, _ = translate(sql, self.id_tables, True, False)
        batch = [_params(row) for row in rows]
        if batch:
            self._guarded(lambda cursor: cursor.executemany(text, batch))

    def _run(self, text: str, params: Any) -> Any:
        return self._guarded(lambda cursor: cursor.execute(text, params))

    def _guarded(self, action: Any) -> Any:
        import psycopg

        if self.raw.broken:  # the server went away and came back: a new session
            self.raw = open_raw(self.url)
        cursor = self.raw.cursor()
        try:
            action(cursor)
        except psycopg.errors.InsufficientPrivilege as error:
            raise Refused(f"the room's database refused this machine"
                          f" ({error.diag.message_primary})") from None
        except psycopg.errors.ConfigurationLimitExceeded:
            raise  # bullpen_request_join's "too many waiting": its caller says what to do
        except psycopg.OperationalError as error:
            raise StoreFault(f"the room's PostgreSQL store {redact(self.url)} failed"
                             f" ({_first_line(error)})") from None
        return cursor

    def close(self) -> None:
        self.raw.close()


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def open_raw(url: str, **options: Any) -> Any:
    """A psycopg connection in autocommit with the board's rows, or one clear error."""
    try:
        import psycopg
    except ImportError:  # the optional extra is not installed
        raise BullpenError("this room's store is PostgreSQL; install it with"
                           " pip install 'bullpen[postgres]'") from None
    try:
        return psycopg.connect(url, autocommit=True, row_factory=_rows,
                               connect_timeout=CONNECT_TIMEOUT, **options)
    except psycopg.Error as error:
        reason = _first_line(error)
        if _not_a_member(reason, url) and REVOKED_SIGN in reason:
            raise Revoked(f"this machine is not in the room at {redact(url)} any more: it"
                          " was revoked (its login is disabled); to come back it joins"
                          f" again: bullpen room join URL --machine NAME ({reason})") from None
        if _not_a_member(reason, url):
            raise Refused(f"this machine is not in the room at {redact(url)}: it waits for"
                          " approval (bullpen machines approve NAME CODE on the room's"
                          f" machine) ({reason})") from None
        raise StoreFault(f"cannot open the room's PostgreSQL store {redact(url)}"
                         f" ({reason})") from None


# Revoking keeps the role but makes it NOLOGIN; a machine waiting for approval has none.
REVOKED_SIGN = "is not permitted to log in"


def _not_a_member(reason: str, url: str) -> bool:
    """Whether a failed login is a machine role that approval has not made (or revoking
    disabled), rather than a server that is down."""
    from psycopg.conninfo import conninfo_to_dict

    user = str(conninfo_to_dict(url).get("user", ""))
    return "_m_" in user and any(sign in reason for sign in (
        "password authentication failed", "is not permitted to log in",
        f'role "{user}" does not exist'))
