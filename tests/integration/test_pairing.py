"""Joining by pairing, default deny enforced by PostgreSQL itself: the guest login `room
invite` made can file a join request and nothing else, and a machine has no login of its
own until its code is approved; approval works once, within the hour; wrong codes are
counted; revoking takes everything back. (test_pairing_attacks.py: the attacks.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import psycopg
import pytest

from board import pairing, store
from board.room import prepare_home
from tests.cli_runner import run_cli
from tests.conftest import git
from tests.pg_cluster import PgCluster

CODE = re.compile(rf"pairing code: ([{pairing.ALPHABET}]{{{pairing.CODE_LENGTH}}})$", re.M)
GUEST_URL = re.compile(r"bullpen room join '(postgresql://[^']+)'")


@pytest.fixture
def shared_room(pg_cluster: PgCluster, git_repo: Path, tmp_path: Path,
                monkeypatch: pytest.MonkeyPatch):
    """Machine A (the operator's, owning the database) and a clone B that may join."""
    database = pg_cluster.new_database()
    prepare_home(git_repo / ".bullpen")
    store.write_local(git_repo / ".bullpen", store=pg_cluster.url(database), machine="alpha")
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "pgpass"))
    invited = run_cli("room", "invite", "--host", "127.0.0.1", cwd=git_repo)
    assert invited.returncode == 0, invited.stderr
    clone = tmp_path / "b"
    git(tmp_path, "clone", "-q", str(git_repo), str(clone))
    yield {"a": git_repo, "b": clone, "database": database,
           "join_url": GUEST_URL.search(invited.stdout).group(1)}
    pg_cluster.drop_database(database)


def join(room: dict, repo: Path, name: str) -> str:
    result = run_cli("room", "join", room["join_url"], "--machine", name, cwd=repo)
    assert result.returncode == 0, result.stderr
    return CODE.search(result.stdout).group(1)


def own_connection(repo: Path) -> psycopg.Connection:
    """The joining machine's own database session, as its local config names it."""
    url = store.choose(repo / ".bullpen").url
    return psycopg.connect(url, autocommit=True)


def tables(pg_cluster: PgCluster, database: str) -> list[str]:
    return [row[0] for row in pg_cluster.admin(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1", database)]


def denied(conn: psycopg.Connection, sql: str) -> bool:
    try:
        conn.execute(sql)
    except psycopg.errors.InsufficientPrivilege as error:
        return "permission denied" in str(error)
    return False


def test_before_approval_the_machine_has_no_login_and_the_guest_may_do_nothing_else(
        shared_room, pg_cluster: PgCluster) -> None:
    join(shared_room, shared_room["b"], "beta")
    local = (shared_room["b"] / ".bullpen" / store.LOCAL_CONFIG).read_text()
    assert "password" not in local and "machine_id" in local  # the secret is in pgpass
    assert oct(Path(shared_room["b"].parent / "pgpass").stat().st_mode & 0o777) == "0o600"
    with pytest.raises(psycopg.OperationalError):  # its role is made at approval
        own_connection(shared_room["b"]).close()
    guest = psycopg.connect(shared_room["join_url"], autocommit=True)
    everything = tables(pg_cluster, shared_room["database"])
    assert {"notes", "tasks", "notebook", "sessions", "join_requests"} <= set(everything)
    assert [t for t in everything if not denied(guest, f"SELECT * FROM {t} LIMIT 1")] == []
    for sql in ("INSERT INTO notes (sender, recipient, body, created_at) VALUES"
                " ('x', 'y', 'z', 0)",
                "UPDATE join_requests SET state = 'approved'",
                "DELETE FROM join_requests",
                "INSERT INTO join_requests (machine, role, code_hash, state, created_at)"
                " VALUES ('beta', 'x', 'x', 'approved', 0)",
                "SELECT bullpen_approve('beta', 'x', 'me')",
                "SELECT bullpen_revoke('alpha')",
                "SELECT bullpen_invite('x')",
                "SELECT bullpen_setup_pairing()",
                "CREATE TABLE mine (x int)"):
        assert denied(guest, sql), sql
    guest.close()
    refused = run_cli("task", "ls", cwd=shared_room["b"])
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "not in the room" in refused.stderr and "waits for approval" in refused.stderr


def test_approval_lets_it_in_once_and_revoke_takes_it_back(
        shared_room, pg_cluster: PgCluster) -> None:
    a, b = shared_room["a"], shared_room["b"]
    code = join(shared_room, b, "beta")
    assert "beta" in run_cli("machines", cwd=a).stdout  # pending, shown to the operator
    approved = run_cli("machines", "approve", "beta", code.lower(), cwd=a)
    assert approved.returncode == 0, approved.stderr
    assert "machine beta joined" in approved.stdout
    added = run_cli("task", "add", "work from beta", cwd=b)
    assert added.returncode == 0, added.stderr
    assert "work from beta" in run_cli("task", "ls", cwd=a).stdout
    conn = own_connection(b)
    assert conn.execute("SELECT count(*) FROM tasks").fetchone()[0] == 1
    again = run_cli("machines", "approve", "beta", code, cwd=a)
    assert again.returncode == 2 and "already used" in again.stderr
    assert again.stderr.count("\n") == 1
    assert run_cli("machines", "revoke", "beta", cwd=a).returncode == 0
    with pytest.raises(psycopg.Error):  # its open session ends, or loses every right
        conn.execute("SELECT count(*) FROM tasks")
    conn.close()
    after = run_cli("task", "ls", cwd=b)
    assert after.returncode == 2 and "not in the room" in after.stderr


def test_an_expired_code_is_refused(shared_room, pg_cluster: PgCluster) -> None:
    code = join(shared_room, shared_room["b"], "beta")
    pg_cluster.admin("UPDATE join_requests SET created_at = created_at - 3601",
                     shared_room["database"])
    result = run_cli("machines", "approve", "beta", code, cwd=shared_room["a"])
    assert result.returncode == 2 and "expired" in result.stderr
    assert result.stderr.count("\n") == 1
    assert run_cli("task", "ls", cwd=shared_room["b"]).returncode == 2  # still outside


def test_wrong_codes_are_counted_and_spend_that_request(shared_room,
                                                       pg_cluster: PgCluster) -> None:
    a = shared_room["a"]
    code = join(shared_room, shared_room["b"], "beta")
    malformed = run_cli("machines", "approve", "beta", "O0I1-XYZ", cwd=a)
    assert malformed.returncode == 2 and "not a pairing code" in malformed.stderr
    nobody = run_cli("machines", "approve", "gamma", code, cwd=a)
    assert nobody.returncode == 2 and "no machine named 'gamma' is waiting" in nobody.stderr
    wrong = "".join(reversed(code)) if "".join(reversed(code)) != code else "AAAAAAAA"
    for _ in range(pairing.MAX_WRONG_CODES):
        result = run_cli("machines", "approve", "beta", wrong, cwd=a)
        assert result.returncode == 2 and "is not the code machine beta showed" in result.stderr
    counted = pg_cluster.admin("SELECT wrong_codes, state FROM join_requests",
                               shared_room["database"])
    assert counted == [(pairing.MAX_WRONG_CODES, "refused")]
    spent = run_cli("machines", "approve", "beta", code, cwd=a)  # even the right one now
    assert spent.returncode == 2 and "spent by wrong codes" in spent.stderr


def test_pairing_needs_a_room_on_postgresql(git_repo: Path) -> None:
    result = run_cli("machines", "approve", "beta", "ABCDEFGH", cwd=git_repo)
    assert result.returncode == 2 and "on SQLite" in result.stderr


def test_doctor_checks_the_postgresql_store_and_this_machines_place(
        shared_room, pg_cluster: PgCluster) -> None:
    a, b = shared_room["a"], shared_room["b"]
    on_a = run_cli("doctor", cwd=a)
    assert on_a.returncode == 0, on_a.stdout + on_a.stderr
    assert "no database yet" not in on_a.stdout
    assert re.search(r"PostgreSQL .* reachable, schema (\d+) of \1", on_a.stdout)
    assert "this machine is alpha" in on_a.stdout and "approved" in on_a.stdout
    code = join(shared_room, b, "beta")
    waiting = run_cli("doctor", cwd=b)
    assert waiting.returncode == 1 and "all good" not in waiting.stdout
    assert "waits for approval" in waiting.stdout
    assert "bullpen machines approve beta CODE" in waiting.stdout
    assert run_cli("machines", "approve", "beta", code, cwd=a).returncode == 0
    joined = run_cli("doctor", "--json", cwd=b)
    found = {f["what"]: f["ok"] for f in json.loads(joined.stdout)}
    assert any(what.startswith("this machine is beta") and ok for what, ok in found.items())
    assert any(what.startswith("alpha: no coordinator yet") for what in found)


def test_doctor_on_a_revoked_machine_says_it_was_revoked_and_how_to_come_back(
        shared_room) -> None:
    a, b = shared_room["a"], shared_room["b"]
    code = join(shared_room, b, "beta")
    assert run_cli("machines", "approve", "beta", code, cwd=a).returncode == 0
    assert run_cli("machines", "revoke", "beta", cwd=a).returncode == 0

    doctor = run_cli("doctor", "--json", cwd=b)

    assert doctor.returncode == 1
    [store_finding] = [f for f in json.loads(doctor.stdout) if f["area"] == "store"]
    assert "was revoked" in store_finding["what"] and "waits for" not in store_finding["what"]
    assert "bullpen machines approve" not in store_finding["fix"]  # no request to approve
    assert "bullpen room join URL --machine beta" in store_finding["fix"]
    after = run_cli("task", "ls", cwd=b)
    assert after.returncode == 2 and after.stderr.count("\n") == 1
    assert "was revoked" in after.stderr and "waits for approval" not in after.stderr


def test_a_machine_acts_only_on_its_own_sessions_and_the_audit_names_it(
        shared_room) -> None:
    a, b = shared_room["a"], shared_room["b"]
    code = join(shared_room, b, "beta")
    assert run_cli("machines", "approve", "beta", code, cwd=a).returncode == 0
    assert run_cli("register", "research", cwd=a).returncode == 0
    for verb in ("stop", "restart"):  # beta's operator, on alpha's session
        # (alpha runs no coordinator here, so the ask is refused at once; granted asks
        # to a running machine: tests/e2e/test_across_machines.py)
        refused = run_cli(verb, "research", cwd=b)
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
        assert "research runs on machine alpha, which is unreachable" in refused.stderr
    trail = json.loads(run_cli("audit", "--json", cwd=a).stdout)
    refusals = [e for e in trail if e["outcome"] == "refused" and e["target"] == "research"]
    assert [(e["action"], e["machine"]) for e in refusals] == [
        ("stop (asked of machine alpha)", "beta"), ("restart (asked of machine alpha)", "beta")]
    assert "machine" in run_cli("audit", cwd=a).stdout.splitlines()[0]


def test_a_machine_whose_request_was_spent_joins_again(shared_room) -> None:
    a, b = shared_room["a"], shared_room["b"]
    code = join(shared_room, b, "beta")
    wrong = "".join(reversed(code)) if "".join(reversed(code)) != code else "AAAAAAAA"
    for _ in range(pairing.MAX_WRONG_CODES):
        run_cli("machines", "approve", "beta", wrong, cwd=a)
    again = join(shared_room, b, "beta")  # a new request, a new code
    assert run_cli("machines", "approve", "beta", again, cwd=a).returncode == 0
    assert run_cli("task", "ls", cwd=b).returncode == 0
    twice = run_cli("room", "join", shared_room["join_url"], "--machine", "beta", cwd=b)
    assert twice.returncode == 2 and "already in a room" in twice.stderr
