"""What every board function is given: a connection to the room's store, either one.

Both stores satisfy these protocols structurally: `sqlite3.Connection` (the embedded
default) and `board.postgres.PgConnection` (a room across machines), which speaks the
board's SQLite dialect to PostgreSQL. A board function typed with `Connection` may use
only what both offer, so a call that works on SQLite cannot fail on PostgreSQL for a
method the other lacks. A leaf module: it imports only board.errors (stdlib only).
"""

from __future__ import annotations

from board.errors import StoreFault

# Not typing's TYPE_CHECKING: every board import (each `bullpen note send`, on every agent
# turn) would pay for importing typing. The protocols exist for the type checker; at run
# time annotations are never evaluated (`from __future__ import annotations` everywhere),
# so the names only have to be importable.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence
    from typing import Any, Protocol

    # Statement parameters: `?` placeholders take a sequence, `:name` ones a mapping.
    Params = Sequence[Any] | Mapping[str, Any]

    class Row(Protocol):
        """A result row, read by position (`row[0]`) or by column name (`row["id"]`)."""

        def __getitem__(self, key: int | str, /) -> Any: ...

        def __iter__(self) -> Iterator[Any]: ...

        def __len__(self) -> int: ...

        def keys(self) -> list[str]: ...

    class Cursor(Protocol):
        """What the board reads back from one statement."""

        @property
        def lastrowid(self) -> int | None: ...

        @property
        def rowcount(self) -> int: ...

        @property
        def description(self) -> Any: ...

        # `Any`, as sqlite3 itself declares it: a row, or None when there is none left.
        def fetchone(self) -> Any: ...

        def fetchall(self) -> list[Row]: ...

        def __iter__(self) -> Iterator[Row]: ...

    class Connection(Protocol):
        """An open store: statements in the board's (SQLite) dialect, autocommit outside
        an explicit `BEGIN` (board.db.write)."""

        @property
        def in_transaction(self) -> bool: ...

        def execute(self, sql: str, parameters: Params = ..., /) -> Cursor: ...

        def executemany(self, sql: str, parameters: Iterable[Params], /) -> object: ...

        def close(self) -> None: ...
else:
    Params = Row = Cursor = Connection = object


def inserted_id(cursor: Cursor) -> int:
    """The id of the row an INSERT just made (both stores report it as `lastrowid`)."""
    if cursor.lastrowid is None:  # an insert into a table without an id column
        raise StoreFault("the store did not report the new row's id")
    return cursor.lastrowid
