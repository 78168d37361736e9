"""Sessions carry their machine; each machine's coordinator serves its own; a machine
that stops beating shows its sessions `unreachable`, and their notes wait."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from board import audit, machines, notes, sessions
from board.errors import Refused
from board.room import open_room
from board.vocabulary import DesiredState
from tests.cli_runner import run_cli
from tests.machines import Machine, join_machine, make_bare_origin
from tests.pg_cluster import PgCluster
from tests.waiting import wait_until
from tui.dashboard.feed import RoomDelta
from tui.dashboard.tail import EventTail
from workers.coordinator.loop import Coordinator


@pytest.fixture
def two_machines(tmp_path: Path, pg_cluster: PgCluster):
    database = pg_cluster.new_database()
    origin = make_bare_origin(tmp_path)
    url = pg_cluster.url(database)
    yield (join_machine(origin, tmp_path / "a", "alpha", url),
           join_machine(origin, tmp_path / "b", "beta", url))
    pg_cluster.drop_database(database)


def ls(machine: Machine) -> dict[str, dict]:
    result = run_cli("ls", "--json", cwd=machine.repo)
    assert result.returncode == 0, result.stderr
    return {row["name"]: row for row in json.loads(result.stdout)}


def test_a_session_carries_the_machine_it_was_registered_on(two_machines) -> None:
    a, b = two_machines
    assert run_cli("register", "coder", cwd=a.repo).returncode == 0
    assert run_cli("register", "reviewer", cwd=b.repo).returncode == 0
    with open_room(env={}, start=b.repo) as room:
        assert {s.name: s.machine for s in sessions.all_sessions(room.conn)} == {
            "coder": "alpha", "reviewer": "beta"}
        assert sessions.get(room.conn, "coder").to_json()["machine"] == "alpha"
    assert {name: row["machine"] for name, row in ls(b).items()} == {
        "coder": "alpha", "reviewer": "beta"}
    table = run_cli("ls", cwd=b.repo).stdout.splitlines()  # the machine beside the name
    assert table[0].split()[:3] == ["name", "machine", "status"]
    assert [line.split()[:2] for line in table[1:]] == [["coder", "alpha"], ["reviewer", "beta"]]


def test_each_coordinator_serves_its_own_machine_and_beats(two_machines) -> None:
    a, b = two_machines
    for name, machine in (("coder", a), ("reviewer", b)):
        assert run_cli("register", name, cwd=machine.repo).returncode == 0
    with open_room(env={}, start=a.repo) as room:
        for name in ("coder", "reviewer"):  # both meant to run, neither has a pane yet
            sessions.update(room.conn, name, desired=DesiredState.RUNNING)
            sessions.set_status(room.conn, name, "working")
        on_b = Coordinator(b.home, watch=False)
        assert on_b.presence.machine == "beta" and on_b.presence.shared
        on_b.tick()  # polls panes: only beta's sessions are its to judge
        assert sessions.get(room.conn, "reviewer").status == "stopped"  # no pane on beta
        assert sessions.get(room.conn, "coder").status == "working"  # alpha's word stands
        assert machines.is_reachable(machines.beats(room.conn)["beta"])
        assert machines.beats(room.conn).get("alpha") is None  # its coordinator never ran
        on_b.conn.close()
        on_b.changes.close()


def test_a_machine_that_stops_beating_is_unreachable_and_its_notes_wait(two_machines) -> None:
    a, b = two_machines
    assert run_cli("register", "coder", cwd=a.repo).returncode == 0
    with open_room(env={}, start=a.repo) as room:
        sessions.update(room.conn, "coder", desired=DesiredState.RUNNING)
        sessions.set_status(room.conn, "coder", "idle")
        machines.beat(room.conn, "alpha")
        assert ls(b)["coder"]["status"] == "idle"  # alpha beats: its status is shown
        machines.beat(room.conn, "alpha", now=time.time() - machines.UNREACHABLE_AFTER - 1)
        row = ls(b)["coder"]
        assert row["status"] == "unreachable" and row["pane"] is None
        note = notes.send(room.conn, "operator", "coder", "are you there?")
        on_b = Coordinator(b.home, watch=False)
        on_b.tick()
        assert [n.id for n in notes.pending(room.conn, "coder")] == [note.id]  # still waits
        on_b.conn.close()
        on_b.changes.close()
        machines.beat(room.conn, "alpha")  # back
        assert ls(b)["coder"]["status"] == "idle"
        assert [n.id for n in notes.pending(room.conn, "coder")] == [note.id]


def test_ls_and_the_dashboard_say_the_same_word_for_a_silent_machines_session(
        two_machines) -> None:
    a, b = two_machines
    assert run_cli("register", "coder", cwd=a.repo).returncode == 0
    seen: list[RoomDelta] = []

    def shown() -> str | None:  # the coder's status in the newest sessions panel
        panels = [delta.sessions for delta in seen if delta.sessions is not None]
        return panels[-1][0].session.status if panels else None

    with open_room(env={}, start=a.repo) as room:
        sessions.set_status(room.conn, "coder", "stopped")  # alpha's last word
        machines.beat(room.conn, "alpha")
        tail = EventTail(b.home / "bullpen.db", seen.append)
        tail.start()
        try:
            wait_until(lambda: shown() == "stopped", message="alpha's own word, while it beats")
            assert ls(b)["coder"]["status"] == "stopped"
            # alpha falls silent: no event says so, yet the dashboard follows within a beat
            machines.beat(room.conn, "alpha", now=time.time() - machines.UNREACHABLE_AFTER - 1)
            wait_until(lambda: shown() == "unreachable", timeout=machines.BEAT_EVERY + 3,
                       message=lambda: f"unreachable on the dashboard, not {shown()}")
        finally:
            tail.stop()
    assert ls(b)["coder"]["status"] == "unreachable"


def test_diff_of_a_session_elsewhere_says_where_its_branch_lives(two_machines) -> None:
    a, b = two_machines
    assert run_cli("register", "coder", cwd=a.repo).returncode == 0
    unset = run_cli("diff", "coder", cwd=b.repo)
    assert unset.returncode == 2 and unset.stderr.count("\n") == 1
    assert "runs on machine alpha; set push: REMOTE" in unset.stderr
    (b.repo / "bullpen.yaml").write_text("push: origin\n")
    not_pushed = run_cli("diff", "coder", cwd=b.repo)
    assert not_pushed.returncode == 2
    assert "lives on machine alpha and is not on origin yet" in not_pushed.stderr
    (b.repo / "bullpen.yaml").write_text("push: 'no such; remote'\n")
    bad = run_cli("up", "--detach", cwd=b.repo)
    assert bad.returncode == 2 and "push: name a git remote" in bad.stderr


def test_a_profile_is_held_per_machine(two_machines) -> None:
    a, b = two_machines
    with open_room(env={}, start=a.repo) as room:
        sessions.register(room.conn, "coder", profile="coder", machine="alpha")
        sessions.update(room.conn, "coder", desired=DesiredState.RUNNING)
        # beta's hermes home has its own profile of that name: no clash across machines
        sessions.register(room.conn, "coder-b", profile="coder", machine="beta")
        with pytest.raises(Refused, match="in use by session 'coder'"):
            sessions.register(room.conn, "coder-2", profile="coder", machine="alpha")


@pytest.fixture
def two_vms(tmp_path: Path, pg_cluster: PgCluster):
    """Two clones configured under one name, as cloned VMs sharing a host name would be."""
    database = pg_cluster.new_database()
    origin = make_bare_origin(tmp_path)
    url = pg_cluster.url(database)
    yield (join_machine(origin, tmp_path / "a", "vm", url),
           join_machine(origin, tmp_path / "b", "vm", url))
    pg_cluster.drop_database(database)


def test_a_second_machine_under_a_taken_name_is_refused_and_touches_nothing(
        two_vms) -> None:
    a, b = two_vms
    assert run_cli("register", "coder", cwd=a.repo).returncode == 0  # a claims "vm"
    with open_room(env={}, start=a.repo) as room:
        sessions.update(room.conn, "coder", desired=DesiredState.RUNNING)
        sessions.set_status(room.conn, "coder", "working")
        for verb in (("register", "other"), ("up", "--detach")):
            refused = run_cli(*verb, cwd=b.repo)
            assert refused.returncode == 2, verb
            assert refused.stderr.count("\n") == 1 and "--machine NAME" in refused.stderr
        # down is refused too (nothing of the name's runs here), and audited as refused
        down = run_cli("down", cwd=b.repo)
        assert down.returncode == 2 and down.stdout == "", down
        assert down.stderr.count("\n") == 1 and "run bullpen down on that machine" in \
            down.stderr and "--machine NAME" in down.stderr
        last = audit.entries(room.conn)[-1]
        assert (last.action, last.outcome) == ("down", "refused")
        with pytest.raises(Refused, match="belongs to another machine"):
            Coordinator(b.home, watch=False)
        coder = sessions.get(room.conn, "coder")
        assert (coder.status, coder.desired) == ("working", DesiredState.RUNNING)
        assert sessions.get(room.conn, "other") is None
        ids = {m.home: machines.local_id(m.home) for m in (a, b)}
        assert ids[a.home] and ids[b.home] is None  # b never got the name's identity


def test_down_on_one_machine_leaves_the_other_machines_sessions_running(
        two_machines) -> None:
    a, b = two_machines
    assert run_cli("register", "coder", cwd=a.repo).returncode == 0
    assert run_cli("register", "reviewer", cwd=b.repo).returncode == 0
    with open_room(env={}, start=a.repo) as room:
        machines.register_here(room.conn, a.home, owner=True)  # alpha owns the room
        sessions.register(room.conn, "legacy")  # from before sessions carried a machine
        for name in ("coder", "reviewer", "legacy"):
            sessions.update(room.conn, name, desired=DesiredState.RUNNING)
            sessions.set_status(room.conn, name, "working")
        down = run_cli("down", cwd=b.repo)
        assert down.returncode == 0, down.stderr
        status = {s.name: s.status for s in sessions.all_sessions(room.conn)}
        assert status == {"coder": "working", "legacy": "working", "reviewer": "stopped"}


def test_migrate_waits_for_coordinators_that_are_stopping(two_machines) -> None:
    a, b = two_machines
    assert run_cli("register", "reviewer", cwd=b.repo).returncode == 0
    on_b = Coordinator(b.home, watch=False)
    on_b.tick()  # beta's coordinator beats ...
    with open_room(env={}, start=a.repo) as room:
        assert machines.is_reachable(machines.beats(room.conn)["beta"])
        stop = threading.Event()
        stop.set()
        on_b.run(stop)  # ... and stops cleanly: its beat goes with it
        assert machines.beats(room.conn)["beta"] is None
        # alpha's coordinator was killed a moment ago: its last beat ages out soon
        machines.beat(room.conn, "alpha", now=time.time() - machines.UNREACHABLE_AFTER + 1.5)
    started = time.monotonic()
    moved = run_cli("room", "migrate", "--to", "sqlite", cwd=a.repo)
    assert moved.returncode == 0, moved.stderr
    assert 1.0 <= time.monotonic() - started < machines.UNREACHABLE_AFTER + 5
