"""Choosing the store: SQLite by default, PostgreSQL by local config or environment; the
URL's secret stays out of tracked files and messages; readers wake on LISTEN/NOTIFY."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from board import notes, postgres, sessions, store, wakeup
from board.db import connect, is_postgres
from board.room import open_room
from tests.cli_runner import BULLPEN, identity, run_cli
from tests.conftest import git
from tests.pg_cluster import PgCluster


@pytest.fixture
def database(pg_cluster: PgCluster):
    name = pg_cluster.new_database()
    yield name
    pg_cluster.drop_database(name)


def test_sqlite_is_the_default_and_nothing_imports_psycopg(git_repo: Path) -> None:
    probe = ("import sys; from board.room import open_room; room = open_room();"
             " print(type(room.conn).__module__, 'psycopg' in sys.modules)")
    result = subprocess.run([str(Path(BULLPEN).parent / "python"), "-c", probe],
                            cwd=git_repo, capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["sqlite3", "False"]
    assert (git_repo / ".bullpen" / "bullpen.db").exists()


def test_the_environment_url_wins_and_every_process_shares_the_room(
        git_repo: Path, pg_cluster: PgCluster, database: str) -> None:
    env = {store.ENV_URL: pg_cluster.url(database)}
    assert run_cli("register", "coder", cwd=git_repo, env=env).returncode == 0
    added = run_cli("task", "add", "shared work", "--json", cwd=git_repo, env=env)
    task_id = json.loads(added.stdout)["id"]
    listed = run_cli("task", "ls", "--json", cwd=git_repo, env=env)
    assert [t["id"] for t in json.loads(listed.stdout)] == [task_id]
    assert not (git_repo / ".bullpen" / "bullpen.db").exists()  # nothing went to SQLite
    without = run_cli("task", "ls", "--json", cwd=git_repo)
    assert json.loads(without.stdout) == []  # no URL: the room's own (SQLite) store


def test_a_store_key_in_bullpen_yaml_is_refused(git_repo: Path) -> None:
    (git_repo / "bullpen.yaml").write_text("store: postgresql://me:hunter2@db/room\n")
    result = run_cli("up", "--detach", cwd=git_repo)
    assert result.returncode == 2
    assert "does not belong in bullpen.yaml" in result.stderr
    assert "hunter2" not in result.stderr and result.stderr.count("\n") == 1


def test_an_unreachable_server_is_one_line_exit_one_without_the_password(
        git_repo: Path) -> None:
    url = "postgresql://me:hunter2@127.0.0.1:9/room?connect_timeout=2"
    result = run_cli("task", "ls", cwd=git_repo, env={store.ENV_URL: url})
    assert result.returncode == 1, result
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "hunter2" not in result.stderr and "me:***@127.0.0.1" in result.stderr


def test_a_password_comes_from_pgpass_never_from_a_tracked_file(
        git_repo: Path, pg_cluster: PgCluster, database: str, tmp_path: Path) -> None:
    pg_cluster.admin("CREATE ROLE alice LOGIN PASSWORD 's3cret-pw'")
    pg_cluster.admin(f"GRANT CONNECT ON DATABASE {database} TO alice")  # not PUBLIC's
    pg_cluster.admin("GRANT ALL ON ALL TABLES IN SCHEMA public TO alice", database)
    pg_cluster.admin("GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO alice", database)
    pg_cluster.admin("GRANT ALL ON TABLE bullpen_schema TO alice", database)
    home = git_repo / ".bullpen"
    open_room(env={}, start=git_repo).close()
    store.write_local(home, store=pg_cluster.tcp_url(database, "alice"))
    refused = run_cli("task", "ls", cwd=git_repo, env={"PGPASSFILE": str(tmp_path / "none")})
    assert refused.returncode == 1 and "password" in refused.stderr
    pgpass = tmp_path / "pgpass"
    pgpass.write_text(f"127.0.0.1:{pg_cluster.port}:{database}:alice:s3cret-pw\n")
    pgpass.chmod(0o600)
    works = run_cli("task", "add", "via pgpass", cwd=git_repo, env={"PGPASSFILE": str(pgpass)})
    assert works.returncode == 0, works.stderr
    tracked = git(git_repo, "ls-files", "--others", "--cached", "--exclude-standard")
    assert ".bullpen" not in tracked  # local.yaml is untracked (info/exclude)
    assert oct((home / store.LOCAL_CONFIG).stat().st_mode & 0o777) == "0o600"


def test_a_waiter_wakes_at_the_commit_of_another_connection(
        pg_cluster: PgCluster, database: str) -> None:
    conn = postgres.connect(pg_cluster.url(database))
    sessions.register(conn, "b")
    waiter = wakeup.waiter(conn)
    assert waiter.pushes and not waiter.wait(0.2)  # nothing committed: a quiet timeout
    other = connect(pg_cluster.url(database))
    sender = threading.Timer(0.2, lambda: notes.send(other, "operator", "b", "wake up"))
    sender.start()
    started = time.monotonic()
    assert waiter.wait(30)
    assert time.monotonic() - started < 5  # woken by the commit, not the timeout
    assert [n.body for n in notes.pending(conn, "b")] == ["wake up"]
    # The waiter wakes at the commit, before the sender has read COMMIT's answer:
    # closing `other` under it made the sender's thread fail (seen in a loaded suite).
    sender.join(30)
    waiter.close()
    conn.close()
    other.close()


@pytest.mark.both_stores
def test_inbox_wait_wakes_when_a_note_arrives_from_another_process(room, store_backend) -> None:
    env = identity(room.home, "b", sessions.register(room.conn, "b"))
    assert is_postgres(room.conn) == (store_backend == "postgresql")
    waiter = subprocess.Popen([BULLPEN, "note", "inbox", "--json", "--wait", "60"],
                              cwd=room.home.parent, env={**os.environ, **env},
                              stdout=subprocess.PIPE, text=True)
    started = time.monotonic()
    run_cli("note", "send", "b", "hello across", cwd=room.home.parent)
    out, _ = waiter.communicate(timeout=60)
    assert [n["body"] for n in json.loads(out)] == ["hello across"]
    assert time.monotonic() - started < 30
