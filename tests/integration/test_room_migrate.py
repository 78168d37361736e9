"""`bullpen room migrate`: a room moves from SQLite to PostgreSQL and back, every row and
id intact, and goes on working where it landed."""

from __future__ import annotations

import json
from pathlib import Path

from board import alerts, notebook, notes, reads, sessions, tasks, transfer
from board.db import connect, is_postgres
from board.identity import Caller
from board.room import open_room
from tests.cli_runner import identity, run_cli
from tests.pg_cluster import PgCluster

OPERATOR = Caller("operator")


def fill(conn) -> dict[str, str]:
    """A room that has lived a little: every table holds rows."""
    tokens = {name: sessions.register(conn, name, machine="alpha") for name in ("a", "b")}
    first = tasks.add(conn, OPERATOR, "research", assignee="a")
    second = tasks.add(conn, OPERATOR, "code", assignee="b", after=[first.id])
    tasks.comment(conn, OPERATOR, second.id, "use the v2 schema")
    asked = notes.send(conn, Caller("a"), "b", "schema is ready")
    notes.send(conn, Caller("b"), "a", "thanks", reply_to=asked.id)
    notes.inbox(conn, Caller("a"))
    notebook.write_entry(conn, Caller("a"), "usage peaks at noon", tag="usage")
    notebook.write_entry(conn, Caller("a"), "the noon peak is a bot", private=True)
    reads.record(conn, "b", ["src/app.py"])
    alerts.record_change(conn, "a", ["src/app.py"], "abc123", "faster handler")
    return tokens


def dump(conn) -> dict[str, list[dict]]:
    shape = transfer.tables(conn)
    return {table: [dict(zip(columns, row, strict=True)) for row in conn.execute(
                f"SELECT {', '.join(columns)} FROM {table}{transfer.room_rows(table)}"
                f" ORDER BY {columns[0]}"
                + (", " + columns[1] if len(columns) > 1 else ""))]
            for table, columns in shape.items()}


def test_a_room_moves_to_postgresql_and_back_keeping_every_id(
        git_repo: Path, pg_cluster: PgCluster) -> None:
    database = pg_cluster.new_database()
    with open_room(env={}, start=git_repo) as room:
        tokens = fill(room.conn)
        before = dump(room.conn)
    assert all(before[table] for table in ("tasks", "notes", "deliveries", "notebook",
                                           "alerts", "events"))

    moved = run_cli("room", "migrate", "--to", pg_cluster.url(database), cwd=git_repo)
    assert moved.returncode == 0, moved.stderr
    with open_room(env={}, start=git_repo) as room:
        assert is_postgres(room.conn)
        assert dump(room.conn) == before
        # It goes on: new ids follow the copied ones, search and tokens still work.
        assert tasks.add(room.conn, OPERATOR, "review").id == max(
            t["id"] for t in before["tasks"]) + 1
        assert [e.body for e in notebook.search(room.conn, Caller("b"), "noon")] == [
            "usage peaks at noon"]
        as_b = run_cli("note", "inbox", "--json", cwd=git_repo,
                       env=identity(git_repo / ".bullpen", "b", tokens["b"]))
        unread_before = [d["note"] for d in before["deliveries"]
                         if d["recipient"] == "b" and d["read_at"] is None]
        assert [n["id"] for n in json.loads(as_b.stdout)] == unread_before  # b's token works
        assert json.loads(as_b.stdout)[0]["body"] == "schema is ready"
        after_pg = dump(room.conn)
    assert list((git_repo / ".bullpen").glob("bullpen.db.moved-to-postgresql-*"))

    back = run_cli("room", "migrate", "--to", "sqlite", cwd=git_repo)
    assert back.returncode == 0, back.stderr
    with open_room(env={}, start=git_repo) as room:
        assert not is_postgres(room.conn)
        assert dump(room.conn) == after_pg
        assert [e.private for e in notebook.search(room.conn, Caller("a"), "noon")] \
            == [False, True]  # the full-text index was rebuilt
    pg_cluster.drop_database(database)


def test_migrating_into_a_room_that_has_rows_is_refused(
        git_repo: Path, pg_cluster: PgCluster) -> None:
    database = pg_cluster.new_database()
    busy = connect(pg_cluster.url(database))
    sessions.register(busy, "someone")
    busy.close()
    with open_room(env={}, start=git_repo) as room:
        fill(room.conn)
    result = run_cli("room", "migrate", "--to", pg_cluster.url(database), cwd=git_repo)
    assert result.returncode == 2 and "already holds a room" in result.stderr
    assert result.stderr.count("\n") == 1
    with open_room(env={}, start=git_repo) as room:  # still on its SQLite file, unchanged
        assert not is_postgres(room.conn) and len(tasks.list_tasks(room.conn)) == 2
    pg_cluster.drop_database(database)
