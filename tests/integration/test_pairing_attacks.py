"""Pairing holds against the people it lets knock: each attack from issue 22, made with
real roles and their own connections on the real PostgreSQL server.

The room is owned, as in production, by a role with CREATEROLE that is not a superuser.
The partner's way in is the guest login `bullpen room invite` made; the attacker has it
too (it is shared), and a machine waiting for approval has its own local config."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from board import pairing, store
from board.postgres import listen
from tests.cli_runner import run_cli
from tests.conftest import git
from tests.pg_cluster import PgCluster
from tests.waiting import wait_until

CODE = re.compile(rf"pairing code: ([{pairing.ALPHABET}]{{{pairing.CODE_LENGTH}}})$", re.M)
GUEST_URL = re.compile(r"bullpen room join '(postgresql://[^']+)'")


@pytest.fixture
def owned_room(pg_cluster: PgCluster, git_repo: Path, tmp_path: Path,
               monkeypatch: pytest.MonkeyPatch) -> Iterator[dict]:
    """Machine alpha owns the room's database; `room invite` prepared it for partners."""
    database, owner = pg_cluster.new_owned_database()
    home = git_repo / ".bullpen"
    run_cli("init", cwd=git_repo)
    store.write_local(home, store=pg_cluster.url(database, user=owner), machine="alpha")
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "pgpass"))
    invited = run_cli("room", "invite", "--host", "127.0.0.1", cwd=git_repo)
    assert invited.returncode == 0, invited.stderr
    clones = {}
    for name in ("b", "c"):
        clones[name] = tmp_path / name
        git(tmp_path, "clone", "-q", str(git_repo), str(clones[name]))
    yield {"a": git_repo, **clones, "database": database, "owner": owner,
           "guest_url": GUEST_URL.search(invited.stdout).group(1)}
    pg_cluster.drop_database(database)


def join(room: dict, repo: Path, name: str) -> str:
    result = run_cli("room", "join", room["guest_url"], "--machine", name, cwd=repo)
    assert result.returncode == 0, result.stderr
    return CODE.search(result.stdout).group(1)


def approve(room: dict, name: str, code: str):
    return run_cli("machines", "approve", name, code, cwd=room["a"])


def attempt(conn: psycopg.Connection, sql: str) -> bool:
    """Run one statement the attacker tries; True when the server let it through."""
    try:
        conn.execute(sql)
    except psycopg.Error:
        return False
    return True


def guest(room: dict) -> psycopg.Connection:
    return psycopg.connect(room["guest_url"], autocommit=True)


def machine_roles(pg_cluster: PgCluster, database: str) -> set[str]:
    return {row[0] for row in pg_cluster.admin(
        f"SELECT rolname FROM pg_roles WHERE rolname LIKE '{database}\\_m\\_%'")}


def can_log_in(pg_cluster: PgCluster, database: str, role: str, password: str) -> bool:
    try:
        psycopg.connect(pg_cluster.tcp_url(database, role, password)).close()
    except psycopg.OperationalError:
        return False
    return True


def test_the_guest_cannot_take_over_a_waiting_machines_role(
        owned_room, pg_cluster: PgCluster) -> None:
    database = owned_room["database"]
    code = join(owned_room, owned_room["b"], "bob")
    attacker = guest(owned_room)
    # the hijack, and the same through whatever request function the guest has
    attempt(attacker, "SELECT bullpen_request_role('bob', 'hijacked')")
    attempt(attacker, "SELECT bullpen_request_join('bob', repeat('a', 64),"
                      " 'SCRAM-SHA-256$4096:c2FsdA==$a2V5:a2V5')")
    attacker.close()
    approved = approve(owned_room, "bob", code)
    assert approved.returncode == 0, approved.stderr
    roles = machine_roles(pg_cluster, database)
    assert roles, "approval made bob's role"
    assert not any(can_log_in(pg_cluster, database, role, "hijacked") for role in roles)
    own = run_cli("task", "ls", cwd=owned_room["b"])  # the real machine is not locked out
    assert own.returncode == 0, own.stderr


def test_the_guest_cannot_create_roles(owned_room, pg_cluster: PgCluster) -> None:
    database = owned_room["database"]
    before = {row[0] for row in pg_cluster.admin("SELECT rolname FROM pg_roles")}
    attacker = guest(owned_room)
    attempt(attacker, "SELECT bullpen_request_role('flood' || n, 'pw')"
                      " FROM generate_series(1, 200) n")
    attempt(attacker, "SELECT bullpen_request_join('flood' || n, md5(n::text) || md5(''),"
                      " 'SCRAM-SHA-256$4096:c2FsdA==$a2V5:a2V5')"
                      " FROM generate_series(1, 200) n")
    for n in range(pairing.MAX_WAITING + 5):  # one call at a time, past the waiting cap
        attempt(attacker, f"SELECT bullpen_request_join('one{n}', md5('{n}') || md5(''),"
                          " 'SCRAM-SHA-256$4096:c2FsdA==$a2V5:a2V5')")
    attacker.close()
    after = {row[0] for row in pg_cluster.admin("SELECT rolname FROM pg_roles")}
    assert after == before
    waiting = pg_cluster.admin("SELECT count(*) FROM join_requests WHERE state = 'pending'",
                               database)[0][0]
    assert waiting <= pairing.MAX_WAITING


def test_wrong_codes_lock_only_the_request_they_were_typed_for(owned_room) -> None:
    bob = join(owned_room, owned_room["b"], "bob")
    carol = join(owned_room, owned_room["c"], "carol")
    wrong = "".join(reversed(carol)) if "".join(reversed(carol)) != carol else "AAAAAAAA"
    for _ in range(pairing.MAX_WRONG_CODES + 3):  # a flood of bad codes for carol
        result = approve(owned_room, "carol", wrong)
        assert result.returncode == 2 and result.stderr.count("\n") == 1
    locked = approve(owned_room, "carol", carol)  # carol's request is spent: join again
    assert locked.returncode == 2 and "join again" in locked.stderr
    approved = approve(owned_room, "bob", bob)  # bob's request never saw a wrong code
    assert approved.returncode == 0, approved.stderr
    assert run_cli("task", "ls", cwd=owned_room["b"]).returncode == 0


def test_a_waiting_machine_files_no_request_under_another_name(
        owned_room, pg_cluster: PgCluster) -> None:
    database = owned_room["database"]
    join(owned_room, owned_room["b"], "bob")
    join(owned_room, owned_room["c"], "carol")
    as_bob = store.choose(owned_room["b"] / ".bullpen").url
    try:
        own = psycopg.connect(as_bob, autocommit=True)
    except psycopg.OperationalError:
        own = None  # no login at all until approved: the strongest answer
    if own is not None:
        for name in ("alpha", "carol", "dave"):
            attempt(own, "INSERT INTO join_requests (machine, code_hash) VALUES"
                         f" ('{name}', repeat('b', 64))")
        own.close()
    attacker = guest(owned_room)  # the guest login cannot take a name in the room either
    attempt(attacker, "SELECT bullpen_request_join('alpha', repeat('c', 64),"
                      " 'SCRAM-SHA-256$4096:c2FsdA==$a2V5:a2V5')")
    attacker.close()
    rows = pg_cluster.admin("SELECT machine FROM join_requests ORDER BY machine", database)
    assert [row[0] for row in rows] == ["bob", "carol"]


def guessable_channels(conn: psycopg.Connection) -> list[str]:
    """Every events channel name an outsider can find: the documented one, the room's own
    if it can read it, and any name written in a function's source it can read."""
    names = ["bullpen_events"]
    with contextlib.suppress(psycopg.Error):
        names += [row[0] for row in conn.execute(
            "SELECT value FROM meta WHERE key = 'pg.events_channel'")]
    for (source,) in conn.execute("SELECT prosrc FROM pg_proc WHERE proname LIKE 'bullpen%'"):
        names += re.findall(r"bullpen_events_[0-9a-f]+", source)
    return sorted(set(names))


def heard(conn: psycopg.Connection, marker: str) -> list[str]:
    """Notifications `conn` got up to the marker (sent last, so all before it are in)."""
    got: list[str] = []

    def reached() -> bool:
        for notice in conn.notifies(timeout=0.2, stop_after=1):
            got.append(notice.payload)
        return marker in got

    wait_until(reached, 10, message="the marker notification")
    return got[:got.index(marker)]


def test_the_guest_neither_hears_nor_raises_the_rooms_events(
        owned_room, pg_cluster: PgCluster) -> None:
    database = owned_room["database"]
    outsider = guest(owned_room)
    tried = guessable_channels(outsider)
    for channel in tried:
        outsider.execute(f'LISTEN "{channel}"')
    member = psycopg.connect(pg_cluster.url(database), autocommit=True)  # a room reader,
    room_channel = listen.channel(member)  # on the channel bullpen's readers use
    member.execute('LISTEN "marker"')
    member.execute(f'LISTEN "{room_channel}"')
    for channel in tried:  # the outsider tries to wake the room's readers
        attempt(outsider, f"NOTIFY \"{channel}\", 'forged'")
    assert run_cli("task", "add", "an event", cwd=owned_room["a"]).returncode == 0
    for channel in ("marker", *tried):  # sent last: everything before it has arrived
        pg_cluster.admin(f"NOTIFY \"{channel}\", 'marker'", database)
    assert "" not in heard(outsider, "marker"), "the guest heard the room's events"
    assert heard(member, "marker") == [""], "the room heard the guest, or not its event"
    member.close()
    outsider.close()


def can_relisten(url: str) -> bool:
    try:
        conn = psycopg.connect(url, autocommit=True)
    except psycopg.OperationalError:
        return False
    ok = attempt(conn, "LISTEN bullpen_events")
    conn.close()
    return ok


def test_revoking_ends_the_machines_connections_and_logins(
        owned_room, pg_cluster: PgCluster) -> None:
    code = join(owned_room, owned_room["b"], "bob")
    assert approve(owned_room, "bob", code).returncode == 0
    url = store.choose(owned_room["b"] / ".bullpen").url
    conn = psycopg.connect(url, autocommit=True)
    assert conn.execute("SELECT count(*) FROM tasks").fetchone()[0] == 0
    assert run_cli("machines", "revoke", "bob", cwd=owned_room["a"]).returncode == 0
    with pytest.raises(psycopg.OperationalError):  # ended, not merely stripped of rights
        conn.execute("SELECT 1")
    assert not can_relisten(url)  # no login: no LISTEN on any channel either
    after = run_cli("task", "ls", cwd=owned_room["b"])
    assert after.returncode == 2 and after.stderr.count("\n") == 1
    assert "not in the room" in after.stderr


def test_a_flood_of_requests_is_cleared_in_two_commands(owned_room, pg_cluster) -> None:
    """A guest that filled the waiting list blocks new partners only until the operator
    re-keys the guest login (ending its open connections) and refuses what waits."""
    attacker = guest(owned_room)
    for n in range(pairing.MAX_WAITING):
        assert attempt(attacker, f"SELECT bullpen_request_join('flood{n}', md5('{n}') ||"
                                 " md5(''), 'SCRAM-SHA-256$4096:c2FsdA==$a2V5:a2V5')")
    blocked = run_cli("room", "join", owned_room["guest_url"], "--machine", "carol",
                      cwd=owned_room["c"])
    assert blocked.returncode != 0
    assert "bullpen machines refuse --waiting" in blocked.stderr
    assert len(blocked.stderr.strip().splitlines()) == 1

    invited = run_cli("room", "invite", "--host", "127.0.0.1", cwd=owned_room["a"])
    assert invited.returncode == 0, invited.stderr
    wait_until(lambda: attacker.closed or attacker.broken or not _still_open(attacker),
               timeout=10, message="the guest's open connection to be ended")
    with pytest.raises(psycopg.OperationalError):  # the old guest password is spent
        psycopg.connect(owned_room["guest_url"]).close()
    refused = run_cli("machines", "refuse", "--waiting", cwd=owned_room["a"])
    assert refused.returncode == 0, refused.stderr
    assert f"refused {pairing.MAX_WAITING} waiting request(s)" in refused.stdout
    listed = run_cli("machines", "--json", cwd=owned_room["a"])
    assert json.loads(listed.stdout)["pending"] == []

    owned_room["guest_url"] = GUEST_URL.search(invited.stdout).group(1)
    code = join(owned_room, owned_room["c"], "carol")
    approved = approve(owned_room, "carol", code)
    assert approved.returncode == 0, approved.stderr
    audit = run_cli("audit", cwd=owned_room["a"])
    assert "refuse join" in audit.stdout


def _still_open(conn: psycopg.Connection) -> bool:
    try:
        conn.execute("SELECT 1")
    except psycopg.Error:
        return False
    return True


def test_refuse_names_one_waiting_machine(owned_room) -> None:
    code = join(owned_room, owned_room["b"], "bob")
    nobody = run_cli("machines", "refuse", "nobody", cwd=owned_room["a"])
    assert nobody.returncode == 2 and "no machine named 'nobody'" in nobody.stderr
    both = run_cli("machines", "refuse", "bob", "--waiting", cwd=owned_room["a"])
    assert both.returncode == 2 and "name one waiting machine" in both.stderr
    refused = run_cli("machines", "refuse", "bob", cwd=owned_room["a"])
    assert refused.returncode == 0, refused.stderr
    assert approve(owned_room, "bob", code).returncode != 0  # its code opens nothing now
