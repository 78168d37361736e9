"""Both backends hold the same room: same migrations, tables and columns, same rules."""

from __future__ import annotations

import sqlite3
from enum import StrEnum
from pathlib import Path

import pytest

from board import notebook, postgres, schema, tasks
from board.db import _statements, connect, connect_sqlite, is_postgres, schema_version, write
from board.errors import BadInput
from board.identity import Caller
from board.postgres.schema import MIGRATIONS as PG_MIGRATIONS
from board.room import Room
from board.vocabulary import (
    DeliveryState,
    DesiredState,
    JoinState,
    MachineState,
    NoteKind,
    SessionStatus,
)
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


# Each column holding a word of the vocabulary, and the enum its default must belong to.
STATE_COLUMNS: dict[tuple[str, str], type[StrEnum]] = {
    ("sessions", "desired"): DesiredState, ("sessions", "status"): SessionStatus,
    ("notes", "kind"): NoteKind, ("deliveries", "state"): DeliveryState,
    ("machines", "state"): MachineState, ("join_requests", "state"): JoinState}


def sqlite_defaults(path: Path) -> dict[tuple[str, str], str | None]:
    conn = connect_sqlite(path)
    found = {(table, c["name"]): c["dflt_value"] for table, _ in STATE_COLUMNS
             for c in conn.execute(f"PRAGMA table_info({table})")}
    conn.close()
    return {key: found[key] for key in STATE_COLUMNS}


def pg_defaults(url: str) -> dict[tuple[str, str], str | None]:
    conn = postgres.connect(url)
    found = {(table, column): default for table, column, default in conn.execute(
        "SELECT table_name, column_name, column_default FROM information_schema.columns"
        " WHERE table_schema = current_schema()")}
    conn.close()
    return {key: found[key] for key in STATE_COLUMNS}


def _word(default: str | None) -> str | None:
    """`'queued'` (SQLite) or `'queued'::text` (PostgreSQL) as the word it stores."""
    return default.removesuffix("::text").strip("'") if default else None


def test_every_state_column_defaults_to_a_word_of_its_enum(tmp_path: Path,
                                                           pg_cluster: PgCluster) -> None:
    name = pg_cluster.new_database()
    try:
        for defaults in (sqlite_defaults(tmp_path / "room.db"),
                         pg_defaults(pg_cluster.url(name))):
            unknown = {key: word for key, value in defaults.items()
                       if (word := _word(value)) not in set(STATE_COLUMNS[key])}
            assert unknown == {}, "a state column defaults to a word no enum knows"
            assert _word(defaults["deliveries", "state"]) == DeliveryState.QUEUED
    finally:
        pg_cluster.drop_database(name)


QUEUED_DEFAULT = 11  # the migration that rebuilt deliveries with its new default


def test_a_store_from_before_the_queued_default_keeps_its_deliveries(tmp_path: Path) -> None:
    path = tmp_path / "room.db"
    old = sqlite3.connect(path, isolation_level=None)
    for script in schema.MIGRATIONS[:QUEUED_DEFAULT - 1]:
        for statement in _statements(script):
            old.execute(statement)
    old.execute(f"PRAGMA user_version = {QUEUED_DEFAULT - 1}")
    old.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")
    old.execute("INSERT INTO notes (id, sender, recipient, body, created_at)"
                " VALUES (1, 'a', 'b', 'hi', 1.0)")
    old.execute("INSERT INTO deliveries (note, recipient, state, held_reason, claim_pane,"
                " possible_repeat) VALUES (1, 'b', 'held', 'busy', '%3', 1)")
    old.close()
    conn = connect_sqlite(path)
    assert schema_version(conn) == len(schema.MIGRATIONS)
    row = conn.execute("SELECT * FROM deliveries").fetchone()
    assert (row["note"], row["recipient"], row["state"], row["held_reason"],
            row["claim_pane"], row["possible_repeat"]) == (1, "b", "held", "busy", "%3", 1)
    conn.execute("INSERT INTO notes (id, sender, recipient, body, created_at)"
                 " VALUES (2, 'a', 'b', 'again', 2.0)")
    conn.execute("INSERT INTO deliveries (note, recipient) VALUES (2, 'b')")
    assert conn.execute("SELECT state FROM deliveries WHERE note = 2").fetchone()[0] == (
        DeliveryState.QUEUED)
    assert sorted(r["name"] for r in conn.execute("PRAGMA index_list(deliveries)")
                  if not r["name"].startswith("sqlite_")) == [
        "deliveries_by_recipient", "deliveries_unread"]  # the rebuild's, and migration 15's
    conn.close()


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
