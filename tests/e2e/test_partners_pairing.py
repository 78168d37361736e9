"""Two machines become one room by following docs/machines.md exactly: the owner moves the
room to PostgreSQL and runs `room invite`; the partner clones and runs the printed `room
join`; the owner approves the printed code. No local config is written by the test.

Two clones and two tmux servers on one host, so both share a host name: the partner's
first join, without --machine, is refused. Then one shared bullpen.yaml places coder on
beta after research, which runs on the room's owner; the promises hold across them."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from board import machines, pairing
from tests.conftest import git
from tests.e2e.conftest import Plan
from tests.machines import make_bare_origin
from tests.pg_cluster import PgCluster
from tests.rooms import live_room

pytestmark = pytest.mark.slow

JOIN_LINE = re.compile(r"^  (bullpen room join '(postgresql://[^']+)') --machine NAME$", re.M)
CODE = re.compile(rf"pairing code: ([{pairing.ALPHABET}]{{{pairing.CODE_LENGTH}}})$", re.M)
APPROVE = re.compile(r"bullpen machines approve (\S+) (\S+)$", re.M)


@pytest.fixture
def partners(tmp_path: Path, pg_cluster: PgCluster,
             monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Plan, Plan, str]]:
    database, owner = pg_cluster.new_owned_database()
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "pgpass"))  # one host: one ~/.pgpass
    origin = make_bare_origin(tmp_path)
    alpha, beta, logs = tmp_path / "alpha", tmp_path / "beta", tmp_path / "logs"
    git(tmp_path, "clone", "-q", str(origin), str(alpha))
    with live_room(alpha, logs) as live_a:
        on_a = Plan(live_a)
        on_a.write({"research": {"task": "Gather the usage data."},
                    "coder": {"machine": "beta", "after": ["research"],
                              "task": "Build the endpoint."}}, {})
        git(alpha, "add", "bullpen.yaml")
        git(alpha, "commit", "-qm", "the room's plan")
        git(alpha, "push", "-q", "origin", "HEAD")
        git(tmp_path, "clone", "-q", str(origin), str(beta))  # the partner's clone
        with live_room(beta, logs) as live_b:
            yield on_a, Plan(live_b), pg_cluster.url(database, user=owner)
    pg_cluster.drop_database(database)


def test_partners_pair_as_documented_and_share_one_plan(partners) -> None:
    on_a, on_b, url = partners
    a, b = on_a.live, on_b.live
    # machine A (has the room): down, move it into the empty database, up
    a.cli("down")
    a.cli("room", "migrate", "--to", url)
    # machine A: make the guest login partners knock with; it prints what they run
    invited = a.cli("room", "invite", "--host", "127.0.0.1").stdout
    join_command, _ = JOIN_LINE.search(invited).groups()
    owner_name = machines.local_name(a.home)
    assert f"(machine {owner_name})" in invited

    # machine B, on the same host: the default name (the host name) is already taken
    same_host = b.cli(*join_words(join_command), check=False)
    assert same_host.returncode == 2 and same_host.stderr.count("\n") == 1
    assert "--machine NAME" in same_host.stderr and socket.gethostname() != ""
    joined = b.cli(*join_words(join_command), "--machine", "beta").stdout
    code = CODE.search(joined).group(1)
    name, shown = APPROVE.search(joined).groups()
    assert (name, shown) == ("beta", code)
    # machine A: approve it once
    a.cli("machines", "approve", name, code)
    assert "beta" in machines_listed(on_a)

    started = a.cli("up", "--detach", "--no-dashboard").stdout
    assert set(a.sessions()) == {"research"}  # coder is not started on A
    assert "coder runs on machine beta" in started
    on_b.up()
    assert on_b.live.sessions()["research"]["machine"] == owner_name
    assert on_b.live.sessions()["coder"]["machine"] == "beta"
    listed = b.cli("ls").stdout
    assert "machine" in listed.splitlines()[0] and owner_name in listed

    # a note from research (on A) is typed into coder's pane on B
    sent = on_a.cli_as("research", "note", "send", "coder", "schema", "is", "in")
    b.wait_for_line("coder", f"[note #{sent['id']} from research] schema is in", timeout=20)
    # research's notebook, written on A, reads on B
    as_research = on_a.as_session("research")
    a.cli("notebook", "write", "usage peaks at noon", env=as_research)
    read = on_b.cli_as("coder", "notebook", "read", "research")
    assert [entry["body"] for entry in read] == ["usage peaks at noon"]
    # research finishes its plan task on A: coder, after it on B, gets the handoff
    research_task = next(t for t in json.loads(a.cli("task", "ls", "--json").stdout)
                         if t["assignee"] == "research")
    a.cli("task", "claim", str(research_task["id"]), env=as_research)
    a.cli("task", "done", str(research_task["id"]), "--summary", "peak at noon",
          env=as_research)
    handoff = b.wait_for_line("coder", "peak at noon", timeout=20)
    assert "research" in handoff

    # B's down stops B's sessions only
    b.cli("down")
    assert a.sessions()["research"]["status"] not in ("stopped", machines.UNREACHABLE)
    assert a.sessions()["research"]["pane"] is not None
    sent = on_a.cli_as("research", "note", "send", "operator", "still", "here")
    assert sent["id"] > 0


def join_words(command: str) -> list[str]:
    """`bullpen room join 'URL'` as the words a shell would pass (without `bullpen`)."""
    import shlex

    return shlex.split(command)[1:]


def machines_listed(plan: Plan) -> str:
    return plan.live.cli("machines").stdout
