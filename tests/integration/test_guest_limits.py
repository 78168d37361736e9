"""The guest login may ask to join and nothing else: no temp tables, no large objects
(issue 30). Each attempt is made with the guest's own psql against the real PostgreSQL
server the tests start, on a room owned by a role that is no superuser (as on a shared
server: what only a superuser can close is named, with its SQL) and on one whose owner
is a superuser (everything is closed by `room invite` itself)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from board import store
from board.postgres.guest_limits import REVOKE_LARGE_OBJECTS
from board.room import prepare_home
from tests.cli_runner import run_cli
from tests.integration.test_pairing_attacks import (
    GUEST_URL,
    approve,
    join,
    owned_room,  # noqa: F401 (a fixture)
)
from tests.pg_cluster import PgCluster

BIG = "convert_to(repeat('x', 20 * 1024 * 1024), 'UTF8')"  # the 20 MB of the report
LARGE_OBJECTS = (f"SELECT lo_from_bytea(0, {BIG})", "SELECT lo_create(0)",
                 "SELECT lo_creat(-1)")
TEMP_TABLE = "CREATE TEMP TABLE hoard (junk text)"


def psql(pg_cluster: PgCluster, url: str, *commands: str) -> subprocess.CompletedProcess:
    """The guest's own psql, one command at a time, stopping at the first error."""
    beside = pg_cluster.bin_dir / "psql"
    program = str(beside) if beside.exists() else shutil.which("psql")
    if program is None:
        pytest.skip("psql is not installed (postgresql-client)")
    args = [program, url, "-X", "-q", "-v", "ON_ERROR_STOP=1"]
    for command in commands:
        args += ["-c", command]
    return subprocess.run(args, capture_output=True, text=True, timeout=60)


def refused(pg_cluster: PgCluster, url: str, command: str) -> bool:
    done = psql(pg_cluster, url, command)
    return done.returncode != 0 and "permission denied" in done.stderr


def invite(repo: Path) -> tuple[str, str]:
    """`room invite` again: (the new guest URL, what it printed)."""
    invited = run_cli("room", "invite", "--host", "127.0.0.1", cwd=repo)
    assert invited.returncode == 0, invited.stderr
    return GUEST_URL.search(invited.stdout).group(1), invited.stdout


def guest_findings(repo: Path) -> list[dict]:
    found = json.loads(run_cli("doctor", "--json", cwd=repo).stdout)
    return [finding for finding in found if finding["area"] == "guest"]


def test_the_guest_makes_no_temp_tables_and_a_superuser_is_named_for_large_objects(
        owned_room, pg_cluster: PgCluster, tmp_path: Path) -> None:  # noqa: F811
    database, repo = owned_room["database"], owned_room["a"]
    url, printed = invite(repo)
    owned_room["guest_url"] = url  # the invite rotated its password
    assert psql(pg_cluster, url, "SELECT 1").returncode == 0  # its login works
    assert refused(pg_cluster, url, TEMP_TABLE)
    # The owner is no superuser: lo_create and its kin are the server's to give or take.
    assert f"warning: any login, the guest's too, may store large objects in {database}" \
        in printed and REVOKE_LARGE_OBJECTS in printed
    [finding] = guest_findings(repo)
    assert not finding["ok"] and REVOKE_LARGE_OBJECTS in finding["fix"]
    pg_cluster.admin(REVOKE_LARGE_OBJECTS, database)  # the superuser does what it says
    for command in LARGE_OBJECTS:
        assert refused(pg_cluster, url, command), command
    hoard = tmp_path / "hoard.bin"
    hoard.write_bytes(b"x" * 1024 * 1024)
    assert refused(pg_cluster, url, f"\\lo_import {hoard}")  # psql's own client-side import
    assert pg_cluster.admin("SELECT count(*) FROM pg_largeobject_metadata", database) == [(0,)]
    assert [f["ok"] for f in guest_findings(repo)] == [True]
    # A machine waiting for approval has no login at all, so no temp table or object.
    code = join(owned_room, owned_room["b"], "bob")
    bob = store.choose(owned_room["b"] / ".bullpen").url
    assert psql(pg_cluster, bob, "SELECT 1").returncode != 0
    # The room itself still works: bob approved, both machines read and write the board.
    assert approve(owned_room, "bob", code).returncode == 0
    added = run_cli("task", "add", "still works", cwd=owned_room["b"])
    assert added.returncode == 0, added.stderr
    listed = run_cli("task", "ls", cwd=repo)
    assert listed.returncode == 0 and "still works" in listed.stdout, listed.stderr


def test_a_superuser_owner_closes_every_door_with_room_invite(
        pg_cluster: PgCluster, git_repo: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    database = pg_cluster.new_database()
    try:
        prepare_home(git_repo / ".bullpen")
        store.write_local(git_repo / ".bullpen", store=pg_cluster.url(database),
                          machine="alpha")
        monkeypatch.setenv("PGPASSFILE", str(tmp_path / "pgpass"))
        url, printed = invite(git_repo)
        assert "warning" not in printed, printed
        for command in (TEMP_TABLE, *LARGE_OBJECTS):
            assert refused(pg_cluster, url, command), command
        assert [f["ok"] for f in guest_findings(git_repo)] == [True]
        doctor = run_cli("doctor", cwd=git_repo)
        assert doctor.returncode == 0, doctor.stdout
        assert re.search(r"ok +guest +the guest login may only ask to join", doctor.stdout)
        # Only a superuser sets lo_compat_privileges (here for this database alone).
        pg_cluster.admin(f"ALTER DATABASE {database} SET lo_compat_privileges = on")
        [finding] = guest_findings(git_repo)
        assert not finding["ok"] and "lo_compat_privileges is on" in finding["what"]
        assert f"ALTER DATABASE {database} RESET lo_compat_privileges" in finding["fix"]
    finally:
        pg_cluster.drop_database(database)
