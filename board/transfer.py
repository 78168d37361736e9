"""Copying a whole room from one store to another (SQLite ↔ PostgreSQL), keeping ids.

Both stores are at the latest schema (the same numbered migrations), so every table and
column of the source has its twin. Rows go over in one write transaction on the target,
parents before children (foreign keys hold at each insert), ids as they were: notes
quoted by id, the dispatcher's cursor and task links stay true. PostgreSQL's identity
counters then continue after the highest id; SQLite's full-text index fills itself.
"""

from __future__ import annotations

from board.connection import Connection
from board.db import is_postgres, write
from board.errors import Refused

# Parents first; any table not named here (added later) follows in name order.
ORDER = ("sessions", "tasks", "task_links", "task_comments", "plan_tasks", "notes",
         "deliveries", "notebook", "reads", "changes", "alerts", "events", "dispatched",
         "meta", "audit", "machines", "join_requests", "pairing_attempts")
BATCH = 500
SKIPPED = ("bullpen_schema",)  # each store keeps its own schema version
# Rows a store keeps for itself (PostgreSQL's secret events channel): never copied.
OWN_ROWS = {"meta": "key NOT LIKE 'pg.%'"}


def tables(conn: Connection) -> dict[str, list[str]]:
    """The room's tables and their columns, in column order."""
    if is_postgres(conn):
        rows = conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position")
        shape: dict[str, list[str]] = {}
        for table, column in rows:
            if table not in SKIPPED:
                shape.setdefault(table, []).append(column)
        return shape
    names = [row[0] for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'notebook_fts%'"
        " AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    return {name: [column[1] for column in conn.execute(f"PRAGMA table_info({name})")]
            for name in names}


def _ordered(names: set[str]) -> list[str]:
    return [t for t in ORDER if t in names] + sorted(names - set(ORDER))


def room_rows(table: str) -> str:
    """A WHERE clause leaving out the rows a store keeps for itself (empty if none)."""
    return f" WHERE {OWN_ROWS[table]}" if table in OWN_ROWS else ""


def copy_room(source: Connection, target: Connection) -> dict[str, int]:
    """Copy every row of `source` into the empty room `target`; returns rows per table."""
    source_tables, target_tables = tables(source), tables(target)
    common = set(source_tables) & set(target_tables)
    copied: dict[str, int] = {}
    with write(target):
        for table in _ordered(common):
            if target.execute(f"SELECT count(*) FROM {table}{room_rows(table)}").fetchone()[0]:
                raise Refused(f"the target store already holds a room ({table} has rows);"
                              " give it an empty database")
        for table in _ordered(common):
            columns = [c for c in source_tables[table] if c in target_tables[table]]
            listed = ", ".join(columns)
            insert = (f"INSERT INTO {table} ({listed})"
                      f" VALUES ({', '.join('?' * len(columns))})")
            order = " ORDER BY id" if "id" in columns else ""
            cursor = source.execute(f"SELECT {listed} FROM {table}{room_rows(table)}{order}")
            rows = [tuple(row) for row in cursor.fetchall()]
            for start in range(0, len(rows), BATCH):
                target.executemany(insert, rows[start:start + BATCH])
            copied[table] = len(rows)
            if "id" in columns and is_postgres(target) and rows:
                target.execute(  # new rows continue after the copied ids
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                    f" (SELECT max(id) FROM {table}))")
    return copied
