"""The board's SQLite-dialect SQL as PostgreSQL receives it (no server needed)."""

from __future__ import annotations

from board.postgres.dialect import translate

IDS = frozenset({"notes", "tasks"})


def pg(sql: str, *, params: bool = True, returning: bool = True) -> tuple[str, bool]:
    return translate(sql, IDS, params, returning)


def test_placeholders_become_psycopg_ones_and_quoted_text_is_left_alone() -> None:
    assert pg("SELECT * FROM t WHERE a = ? AND b = :who AND c LIKE 'x?%:y'")[0] == (
        "SELECT * FROM t WHERE a = %s AND b = %(who)s AND c LIKE 'x?%%:y'")
    assert pg("SELECT 'it''s ?' , ?::text")[0] == "SELECT 'it''s ?' , %s::text"
    assert pg("SELECT '%' WHERE 1 = 1", params=False)[0] == "SELECT '%' WHERE 1 = 1"


def test_insert_into_a_table_with_ids_returns_the_id_for_lastrowid() -> None:
    assert pg("INSERT INTO notes (body) VALUES (?)") == (
        "INSERT INTO notes (body) VALUES (%s) RETURNING id", True)
    assert pg("INSERT INTO deliveries (note) VALUES (?)") == (
        "INSERT INTO deliveries (note) VALUES (%s)", False)
    assert pg("INSERT INTO notes (body) VALUES (?)", returning=False)[1] is False


def test_insert_or_ignore_becomes_on_conflict_do_nothing() -> None:
    assert pg("INSERT OR IGNORE INTO dispatched (key, created_at) VALUES (?, ?)")[0] == (
        "INSERT INTO dispatched (key, created_at) VALUES (%s, %s) ON CONFLICT DO NOTHING")


def test_an_unnamed_subquery_in_from_gets_a_name() -> None:
    assert pg("SELECT * FROM (SELECT * FROM audit ORDER BY id DESC LIMIT ?) ORDER BY id")[0] \
        == ("SELECT * FROM (SELECT * FROM audit ORDER BY id DESC LIMIT %s) AS subquery_1"
            " ORDER BY id")
    named = "SELECT * FROM (SELECT * FROM a WHERE x = ')') AS newest ORDER BY id"
    assert pg(named, params=False)[0] == named
