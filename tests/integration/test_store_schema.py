"""Both backends hold the same room: same migrations, tables and columns, same rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from board import notebook, postgres, schema, tasks
from board.db import connect, connect_sqlite, is_postgres, schema_version, write
from board.errors import BadInput
from board.identity import Caller
from board.postgres.schema import MIGRATIONS as PG_MIGRATIONS
from board.room import Room
from tests.pg_cluster import PgCluster

SQLITE_ONLY = ("notebook_fts",)  # FTS5's index tables; PostgreSQL indexes with GIN


def sqlite_columns(path: Path) -> dict[str, list[tuple[str, bool]]]:
    conn = connect_sqlite(path)
    tables = [row[0] for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        if not row[0].startswith(SQLITE_ONLY)]
    return {table: [(c["name"], bool(c["notnull"]) or bool(c["pk"] and c["type"] != "INTEGER"))
                    for c in conn.execute(f"PRAGMA table_info({table})")]
            for table in tables}


def pg_columns(url: str) -> dict[str, list[tuple[str, bool]]]:
    conn = postgres.connect(url)
    rows = conn.execute(
        "SELECT table_name, column_name, is_nullable FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND table_name != 'bullpen_schema'"
        " ORDER BY table_name, ordinal_position").fetchall()
    shape: dict[str, list[tuple[str, bool]]] = {}
    for table, column, nullable in rows:
        # An id column is NOT NULL on PostgreSQL; SQLite's INTEGER PRIMARY KEY is the rowid.
        shape.setdefault(table, []).append((column, nullable == "NO" and column != "id"))
    return shape


def test_every_sqlite_migration_has_its_postgresql_twin() -> None:
    assert len(PG_MIGRATIONS) == len(schema.MIGRATIONS), (
        "a migration was added to board/schema.py without its PostgreSQL twin in"
        " board/postgres/schema.py")


def test_both_backends_make_the_same_tables_and_columns(tmp_path: Path,
                                                        pg_cluster: PgCluster) -> None:
    name = pg_cluster.new_database()
    try:
        assert pg_columns(pg_cluster.url(name)) == sqlite_columns(tmp_path / "room.db")
    finally:
        pg_cluster.drop_database(name)


@pytest.mark.both_stores
def test_the_room_opens_the_store_it_chose(room: Room, store_backend: str) -> None:
    assert is_postgres(room.conn) == (store_backend == "postgresql")
    assert schema_version(room.conn) == len(schema.MIGRATIONS)
    # Every opener of <home>/bullpen.db follows the room's choice (coordinator, dashboard).
    again = connect(room.db_path)
    assert is_postgres(again) == (store_backend == "postgresql")
    again.close()


@pytest.mark.both_stores
def test_a_failed_write_leaves_nothing_behind(room: Room) -> None:
    operator = Caller("operator")
    with pytest.raises(RuntimeError), write(room.conn):
        tasks.add(room.conn, operator, "half done")
        raise RuntimeError("crash mid-transaction")
    assert tasks.list_tasks(room.conn) == []
    assert not room.conn.in_transaction


@pytest.mark.both_stores
def test_search_finds_whole_words_case_folded_and_quotes_user_text(room: Room) -> None:
    alice = Caller("alice")
    notebook.write_entry(room.conn, alice, "Usage peaks at NOON on weekdays", tag="usage")
    notebook.write_entry(room.conn, alice, "the afternoon is quiet")
    assert [e.body for e in notebook.search(room.conn, alice, "noon")] == [
        "Usage peaks at NOON on weekdays"]
    assert [e.tag for e in notebook.search(room.conn, alice, "usage weekdays")] == ["usage"]
    assert notebook.search(room.conn, alice, "noon & ! quiet:*") == []  # no query syntax
    with pytest.raises(BadInput, match="no words"):
        notebook.search(room.conn, alice, "&&!")


def test_a_database_holding_other_tables_is_refused(pg_cluster: PgCluster) -> None:
    pg_cluster.admin("CREATE DATABASE not_ours")
    try:
        pg_cluster.admin("CREATE TABLE invoices (id int)", database="not_ours")
        with pytest.raises(BadInput, match="already holds other tables"):
            postgres.connect(pg_cluster.url("not_ours"))
    finally:
        pg_cluster.drop_database("not_ours")
