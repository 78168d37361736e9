"""The board on PostgreSQL (psycopg 3): one room shared by several machines.

The board modules keep one set of SQL and rules; `connection.PgConnection` speaks it to
PostgreSQL, `schema` holds the numbered PostgreSQL migrations, `open` applies them.
"""

from __future__ import annotations

from board.errors import BadInput
from board.postgres.connection import WRITE_LOCK, PgConnection, open_raw
from board.postgres.schema import MIGRATIONS, VERSION_TABLE
from board.store import redact


def connect(url: str, *, migrate: bool = True) -> PgConnection:
    """Open the room database at `url`, migrated to the latest schema (unless told not to:
    a machine still waiting for approval may not even read the schema)."""
    conn = PgConnection(open_raw(url), url)
    try:
        if migrate:
            _migrate(conn)
        conn.id_tables = _id_tables(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def schema_version(conn: PgConnection) -> int:
    if conn.execute("SELECT to_regclass(?)", (VERSION_TABLE,)).fetchone()[0] is None:
        return 0
    row = conn.execute(f"SELECT version FROM {VERSION_TABLE}").fetchone()
    return row[0] if row else 0


def _migrate(conn: PgConnection) -> None:
    current = schema_version(conn)
    if current == len(MIGRATIONS):
        return
    _check_ownership(conn, current)
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Re-read under the lock: another machine may have migrated meanwhile.
        conn.execute(f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} (version BIGINT NOT NULL)")
        current = schema_version(conn)
        for number, script in enumerate(MIGRATIONS[current:], start=current + 1):
            conn.execute(script)  # no parameters: sent as one multi-statement script
            conn.execute(f"DELETE FROM {VERSION_TABLE}")
            conn.execute(f"INSERT INTO {VERSION_TABLE} (version) VALUES (?)", (number,))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _check_ownership(conn: PgConnection, version: int) -> None:
    where = redact(conn.url)
    if version > len(MIGRATIONS):
        raise BadInput(f"{where} uses schema {version}, newer than this bullpen knows"
                       f" ({len(MIGRATIONS)}); upgrade bullpen")
    if version == 0:
        others = conn.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"
            " AND tablename != ?", (VERSION_TABLE,)).fetchone()[0]
        if others:
            raise BadInput(f"{where} already holds other tables; give the room a database"
                           " of its own")


def _id_tables(conn: PgConnection) -> frozenset[str]:
    """Tables whose inserts return their new id (for `lastrowid`)."""
    rows = conn.execute(
        "SELECT table_name FROM information_schema.columns WHERE column_name = 'id'"
        " AND is_identity = 'YES' AND table_schema = current_schema()").fetchall()
    return frozenset(row[0] for row in rows)


__all__ = ["WRITE_LOCK", "PgConnection", "connect", "schema_version"]
