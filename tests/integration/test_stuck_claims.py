"""A note whose typing failed is never left claimed: it is queued again (marked a possible
repeat), typed once and in order, and no later note to that session is typed past one
still claimed. Doctor names a claim older than a minute. Real tmux, a real coordinator
process out of file descriptors (RLIMIT_NOFILE), the scripted agent's own log."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import libtmux
import pytest

from board import deliveries, notes, sessions
from board.db import write
from board.identity import Caller
from board.room import Room
from tests.agents.scripted_agent import command_line
from tests.cli_runner import run_cli
from tests.e2e.delivery_bench import log_rows, received
from tests.integration.test_delivery import deliver
from tests.waiting import wait_for_text, wait_until
from workers.coordinator.delivery import Deliverer
from workers.tmux.panes import snapshot_all
from workers.tmux.server import RoomServer

ROOT = Path(__file__).resolve().parents[2]
OPERATOR = Caller("operator")


def typed_ids(log: Path) -> list[int]:
    """The notes the agent read, in the order it read them."""
    found = []
    for row in log_rows(log):
        line = str(row.get("line", ""))
        found += [int(word[1:]) for word in line.split() if word[1:].isdigit()
                  and word.startswith("#")]
    return found


def test_a_note_whose_typing_ran_out_of_descriptors_is_typed_again_once_and_in_order(
        room: Room, server: libtmux.Server, tmp_path: Path) -> None:
    tmux = RoomServer(server.socket_name or "")
    tmux.ensure_session("bench", cwd=tmp_path)
    log = tmp_path / "bob.jsonl"
    sessions.register(room.conn, "bob", agent="python3 agent.py")
    pane = tmux.launch("bench", f"exec {command_line(log)}", tmp_path, {}, "bob",
                       new_window=True)
    wait_for_text(lambda: tmux.capture(pane), "agent>")
    sessions.update(room.conn, "bob", pane_id=pane, desired="running", deliver="type")
    sent = [notes.send(room.conn, OPERATOR, "bob", f"in order {index}") for index in range(3)]
    coordinator = subprocess.Popen(
        [sys.executable, "-m", "tests.agents.fd_starved_coordinator", str(room.home),
         tmux.socket_name], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: deliveries.state_of(room.conn, sent[-1].id, "bob") == "typed",
                   timeout=30, message=lambda: repr(
                       [deliveries.of_note(room.conn, n.id) for n in sent]))
        wait_until(lambda: len(typed_ids(log)) >= len(sent), timeout=10,
                   message=lambda: repr(log_rows(log)))
    finally:
        coordinator.terminate()
        _, errors = coordinator.communicate(timeout=10)
    # EMFILE, for real, at the paste
    assert re.search(r"could not type into %\d+ \(OSError: \[Errno 24\] Too many open files",
                     errors), errors[-2000:]
    states = {n.id: deliveries.state_of(room.conn, n.id, "bob") for n in sent}
    assert states == {n.id: "typed" for n in sent}, (states, errors[-2000:])
    assert {n.id: len(received(log, n)) for n in sent} == {n.id: 1 for n in sent}
    assert typed_ids(log) == [n.id for n in sent]  # the first was not passed by the others
    # Its typing failed after the claim: offered again, flagged as the crash path flags it.
    assert deliveries.repeats(room.conn, "bob", [n.id for n in sent]) == {sent[0].id}
    assert "possibly a repeat" in received(log, sent[0])[0]["line"]


def claim_by_hand(room: Room, server: RoomServer, pane: str, note_id: int) -> None:
    """A claim as a typing that failed and could not be put back leaves it."""
    snap = snapshot_all(server)[pane]
    assert deliveries.claim(room.conn, "bob", [note_id], pane=f"{pane}:{snap.pid}") == [note_id]


@pytest.mark.both_stores
def test_no_note_is_typed_past_an_earlier_one_still_claimed(room: Room, agent_pane) -> None:
    server, pane, log = agent_pane
    sessions.register(room.conn, "bob")
    first, second = (notes.send(room.conn, OPERATOR, "bob", f"note {i}") for i in range(2))
    claim_by_hand(room, server, pane, first.id)
    deliverer = Deliverer(room.conn, server)
    assert deliver(deliverer, room, pane) == []  # not the second: the first is settled
    assert deliveries.state_of(room.conn, second.id, "bob") == "queued"
    assert deliveries.state_of(room.conn, first.id, "bob") == "queued"  # not in the pane
    typed: list[int] = []
    while found := deliver(deliverer, room, pane):
        typed += found
        count = len(typed)
        wait_until(lambda want=count: len(typed_ids(log)) == want, message="the line")
    assert typed == typed_ids(log) == [first.id, second.id]
    assert deliveries.repeats(room.conn, "bob", typed) == set()  # it never reached the pane


@pytest.mark.both_stores
def test_a_claim_left_by_an_exception_is_settled_at_the_next_tick(room: Room,
                                                                  agent_pane) -> None:
    server, pane, log = agent_pane
    sessions.register(room.conn, "bob")
    note = notes.send(room.conn, OPERATOR, "bob", "the only one")

    def fail_once(step: str) -> None:
        if step == "claimed":
            deliverer.on_step = lambda step: None
            raise RuntimeError("something nobody foresaw, after the claim")

    deliverer = Deliverer(room.conn, server, on_step=fail_once)
    with pytest.raises(RuntimeError):
        deliver(deliverer, room, pane)
    assert deliveries.state_of(room.conn, note.id, "bob") == "claimed"
    assert deliveries.waiting(room.conn, "bob") == []  # nothing waits, yet the tick comes
    assert deliverer.holds("bob") and deliverer.unsettled()
    assert deliver(deliverer, room, pane) == [note.id]  # settled (not in the pane), typed
    wait_until(lambda: typed_ids(log) == [note.id], message=lambda: repr(log_rows(log)))
    assert not deliverer.unsettled()


def test_a_claim_can_not_be_taken_past_an_earlier_claim_of_the_same_recipient(
        room: Room) -> None:
    sessions.register(room.conn, "bob")
    sessions.register(room.conn, "carol")
    first, second = (notes.send(room.conn, OPERATOR, "bob", f"note {i}") for i in range(2))
    other = notes.send(room.conn, OPERATOR, "carol", "hers")
    assert deliveries.claim(room.conn, "bob", [first.id], pane="%1:1") == [first.id]
    assert deliveries.claim(room.conn, "bob", [second.id], pane="%1:1") == []
    assert deliveries.claim(room.conn, "carol", [other.id], pane="%2:2") == [other.id]
    deliveries.release(room.conn, "bob", [first.id])
    assert deliveries.claim(room.conn, "bob", [first.id, second.id], pane="%1:1") == [
        first.id, second.id]


def test_doctor_names_a_claim_older_than_a_minute(room: Room, git_repo: Path) -> None:
    sessions.register(room.conn, "bob")
    note = notes.send(room.conn, OPERATOR, "bob", "stuck")
    deliveries.claim(room.conn, "bob", [note.id], pane="%1:1")
    fresh = run_cli("doctor", cwd=git_repo)
    assert "claimed" not in fresh.stdout, fresh.stdout  # typing takes seconds
    with write(room.conn):
        room.conn.execute("UPDATE deliveries SET claimed_at = ? WHERE note = ?",
                          (time.time() - 125, note.id))
    result = run_cli("doctor", cwd=git_repo)
    assert result.returncode == 1, result.stdout
    [line] = [row for row in result.stdout.splitlines() if "claimed" in row]
    assert line.startswith("FAIL") and f"#{note.id} to bob" in line, result.stdout
    assert "all good" not in result.stdout
    assert "fix: bullpen up" in result.stdout, result.stdout
