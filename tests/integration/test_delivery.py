"""Typing pending notes into a real pane: batches, the queue cap, once only."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import libtmux
import pytest

from board import deliveries, notes, pings, sessions
from board.identity import Caller
from board.room import Room
from board.vocabulary import HoldReason, NoteKind
from tests.agents.scripted_agent import command_line
from tests.waiting import wait_for_text, wait_until
from workers.agents import agent_files
from workers.agents.adapter import AgentState
from workers.agents.kinds import adapter_for
from workers.coordinator.delivery import PER_LINE, QUEUE_CAP, Deliverer
from workers.coordinator.status import PaneStatus
from workers.tmux.panes import snapshot_all
from workers.tmux.server import RoomServer

pytestmark = pytest.mark.both_stores

IDLE = PaneStatus(AgentState.IDLE, since=0.0, input_text="")


def deliver(deliverer: Deliverer, room: Room, pane: str) -> list[int]:
    """One coordinator tick for an idle, opted-in generic agent in `pane`."""
    snap = snapshot_all(deliverer.server)[pane]
    return deliverer.deliver(sessions.get(room.conn, "bob"), adapter_for("python3", "type"),
                             IDLE, snap)


def typed_lines(log: Path) -> list[str]:
    if not log.exists():
        return []
    return [json.loads(row)["line"] for row in log.read_text().splitlines()]


def test_queue_over_the_cap_types_the_newest_and_says_so(room: Room, agent_pane) -> None:
    server, pane, log = agent_pane
    sessions.register(room.conn, "bob")
    total = QUEUE_CAP + 10
    sent = [notes.send(room.conn, Caller("operator"), "bob", f"note number {i}")
            for i in range(total)]
    deliverer = Deliverer(room.conn, server)
    rounds = 0
    while deliver(deliverer, room, pane):  # the coordinator, each time bob idles
        rounds += 1
        wait_until(lambda want=rounds: len(typed_lines(log)) == want, message="the line")
    lines = typed_lines(log)
    assert rounds == len(lines) == QUEUE_CAP // PER_LINE
    assert "[bullpen] 10 older notes were not typed (queue over 50)" in lines[0]
    typed_ids = [int(found) for line in lines for found in re.findall(r"#(\d+) from", line)]
    assert typed_ids == [note.id for note in sent[10:]]  # each once, oldest held back
    assert notes.pending(room.conn, "bob") == []
    # Nothing is lost: the 10 held back wait in the inbox; the typed ones count as read.
    assert [n.id for n in notes.inbox(room.conn, Caller("bob"))] == [n.id for n in sent[:10]]
    assert len(notes.inbox(room.conn, Caller("bob"), include_read=True)) == total


def test_a_note_read_from_the_inbox_is_never_typed(room: Room, agent_pane) -> None:
    server, pane, log = agent_pane
    sessions.register(room.conn, "bob")
    notes.send(room.conn, Caller("operator"), "bob", "already read")
    notes.inbox(room.conn, Caller("bob"))
    assert deliver(Deliverer(room.conn, server), room, pane) == []
    later = notes.send(room.conn, Caller("operator"), "bob", "fresh one")
    assert deliver(Deliverer(room.conn, server), room, pane) == [later.id]
    wait_until(lambda: typed_lines(log), message="the fresh note")
    assert typed_lines(log) == [f"[note #{later.id} from operator] fresh one"]


def test_tmux_dying_after_the_enter_leaves_the_note_typed_not_offered_again(
        room: Room, agent_pane, tmp_path: Path) -> None:
    """The soak's duplicate: the agent read the line, then the tmux server was killed
    while the coordinator watched the input line clear. The note reached the agent once;
    the room coming back (a new server, a new pane) must not type it a second time."""
    server, pane, log = agent_pane
    sessions.register(room.conn, "bob")
    note = notes.send(room.conn, Caller("operator"), "bob", "just before the crash")

    def kill_tmux_once_the_agent_has_it(step: str) -> None:
        if step == "entered":
            wait_until(lambda: typed_lines(log), message="the agent reads the line")
            server.kill_server()

    killer = Deliverer(room.conn, server, on_step=kill_tmux_once_the_agent_has_it)
    assert deliver(killer, room, pane) == [note.id]
    assert deliveries.state_of(room.conn, note.id, "bob") == "typed"
    assert deliveries.repeats(room.conn, "bob", [note.id]) == set()
    # As `up` does after the kill: a new server, bob's agent in a new pane.
    server.ensure_session("bullpen", cwd=tmp_path)
    again = server.launch("bullpen", command_line(log), tmp_path, {}, "bob", new_window=True)
    wait_for_text(lambda: server.capture(again), "agent>")
    fresh = Deliverer(room.conn, server)  # a restarted coordinator recovers, then delivers
    fresh.recover(snapshot_all(server), {"bob": adapter_for("python3", "type")})
    assert deliver(fresh, room, again) == []
    assert typed_lines(log) == [f"[note #{note.id} from operator] just before the crash"]


@pytest.mark.parametrize("step", ["claimed", "pasted"])
def test_tmux_gone_before_the_enter_offers_the_note_again_unflagged(
        room: Room, agent_pane, step: str) -> None:
    """The server gone before the Enter reached it: the agent never had the note, so it
    is typed again later as itself, not as a possible repeat."""
    server, pane, log = agent_pane
    sessions.register(room.conn, "bob")
    note = notes.send(room.conn, Caller("operator"), "bob", "not yet")
    killer = Deliverer(room.conn, server,
                       on_step=lambda reached: reached == step and server.kill_server())
    assert deliver(killer, room, pane) == []
    assert deliveries.state_of(room.conn, note.id, "bob") == "queued"
    assert deliveries.repeats(room.conn, "bob", [note.id]) == set()
    assert typed_lines(log) == []


BUSY = PaneStatus(AgentState.WORKING, since=0.0, input_text="")


def test_notes_capped_while_busy_are_announced_once_when_it_idles(room: Room, agent_pane) -> None:
    """60 notes to a busy agent: the 10 oldest go over the cap while it works. The first
    line typed once it idles says so; no later line repeats it."""
    server, pane, log = agent_pane
    sessions.register(room.conn, "bob")
    for i in range(QUEUE_CAP + 10):
        notes.send(room.conn, Caller("operator"), "bob", f"note number {i}")
    deliverer = Deliverer(room.conn, server)
    snap = snapshot_all(server)[pane]
    assert deliverer.deliver(sessions.get(room.conn, "bob"), adapter_for("python3", "type"),
                             BUSY, snap) == []
    assert deliver(deliverer, room, pane) and deliver(deliverer, room, pane)
    wait_until(lambda: len(typed_lines(log)) == 2, message="two lines")
    first, second = typed_lines(log)
    assert first.endswith("[bullpen] 10 older notes were not typed (queue over 50);"
                          " read them with: bullpen note inbox")
    assert "older notes" not in second


def test_a_note_that_comes_while_the_session_is_held_is_held_too(room: Room,
                                                                agent_pane) -> None:
    """The hold is written once per reason, not per tick; a note sent after it is written
    is held with the same reason, not left queued (as seen under load: the fourth of four
    notes to a shell stayed queued)."""
    server, pane, _log = agent_pane
    sessions.register(room.conn, "bob")
    first = notes.send(room.conn, Caller("operator"), "bob", "first")
    deliverer = Deliverer(room.conn, server)

    def busy_tick() -> None:
        assert deliverer.deliver(sessions.get(room.conn, "bob"),
                                 adapter_for("python3", "type"), BUSY,
                                 snapshot_all(server)[pane]) == []

    busy_tick()
    later = notes.send(room.conn, Caller("operator"), "bob", "second")
    busy_tick()
    for note in (first, later):
        row, = deliveries.of_note(room.conn, note.id)
        assert (row.state, row.held_reason) == ("held", HoldReason.BUSY), note


def test_a_note_to_a_session_still_starting_waits_queued_not_held(room, agent_pane) -> None:
    """A spawn or restart is not something the human must look at: its notes wait for the
    prompt queued, not 'held: busy' (each was a needs-you entry for a few seconds)."""
    server, pane, _log = agent_pane
    sessions.register(room.conn, "bob")
    note = notes.send(room.conn, Caller("operator"), "bob", "your task")
    deliverer = Deliverer(room.conn, server)
    starting = PaneStatus(AgentState.STARTING, since=0.0)
    assert deliverer.deliver(sessions.get(room.conn, "bob"), adapter_for("python3", "type"),
                             starting, snapshot_all(server)[pane]) == []
    row, = deliveries.of_note(room.conn, note.id)
    assert (row.state, row.held_reason) == ("queued", None)
    assert not deliverer.holds("bob")


def test_a_note_and_a_handoff_waiting_together_are_typed_on_lines_of_their_own(
        room: Room, agent_pane) -> None:
    server, pane, log = agent_pane
    sessions.register(room.conn, "bob")
    note = notes.send(room.conn, Caller("operator"), "bob", "the schema moved to db/")
    handoff = pings.send_once(room.conn, "ready:1:bob", "bob",
                              "Your turn: task #1 is ready — parse.\nHandoff from research:"
                              " done.", kind=NoteKind.HANDOFF)
    deliverer = Deliverer(room.conn, server)
    assert deliver(deliverer, room, pane) == [note.id]
    assert deliver(deliverer, room, pane) == [handoff.id]
    wait_until(lambda: len(typed_lines(log)) == 2, message="two lines")
    assert typed_lines(log) == [
        f"[note #{note.id} from operator] the schema moved to db/",
        f"[handoff #{handoff.id} from bullpen] Your turn: task #1 is ready — parse. ⏎"
        " Handoff from research: done."]


def test_a_shells_waiting_mark_clears_once_its_notes_are_read(
        room: Room, server: libtmux.Server, tmp_path: Path) -> None:
    room_tmux = RoomServer(server.socket_name or "")
    room_tmux.ensure_session("bullpen", cwd=tmp_path)
    pane = room_tmux.launch("bullpen", "sh", tmp_path, {}, "shell", new_window=True)
    sessions.register(room.conn, "shell")
    note = notes.send(room.conn, Caller("operator"), "shell", "the build is green")
    deliverer = Deliverer(room.conn, room_tmux)

    def tick() -> None:
        deliverer.deliver(sessions.get(room.conn, "shell"), adapter_for("sh"), IDLE,
                          snapshot_all(room_tmux)[pane])

    def mark() -> str:
        return room_tmux.run("show-options", "-p", "-v", "-t", pane,
                             "@bullpen_waiting").stdout.decode().strip()

    tick()
    assert f"1 note(s) waiting, newest #{note.id} from operator" in mark()
    tick()  # nothing new: the mark stays
    assert mark()
    assert [n.id for n in notes.inbox(room.conn, Caller("shell"))] == [note.id]
    tick()
    assert mark() == ""
    later = notes.send(room.conn, Caller("operator"), "shell", "and deployed")
    tick()  # a new note is announced again
    assert f"newest #{later.id}" in mark()


def test_a_note_waits_until_the_agents_bullpen_mcp_server_listed_its_tools(
        room: Room, agent_pane) -> None:
    """Launched with bullpen's MCP server, an agent told "claim task 2 with
    mcp__bullpen__task_claim" before the server is up answers "still connecting": the
    note waits for the server's tools/list, or MCP_WAIT at most."""
    server, pane, log = agent_pane
    sessions.register(room.conn, "bob")
    agent_files.mark_mcp_waiting(room.home, "bob")
    note = notes.send(room.conn, Caller("operator"), "bob", "claim it")
    deliverer = Deliverer(room.conn, server)
    snap = snapshot_all(server)[pane]

    def tick() -> list[int]:
        return deliverer.deliver(sessions.get(room.conn, "bob"),
                                 adapter_for("python3", "type"), IDLE, snap,
                                 mcp_connecting=lambda: agent_files.mcp_connecting(room.home,
                                                                                   "bob"))
    assert tick() == []
    held = room.conn.execute("SELECT state, held_reason FROM deliveries WHERE note = ?",
                             (note.id,)).fetchone()
    assert tuple(held) == ("held", HoldReason.MCP_CONNECTING)
    agent_files.mark_mcp_connected(room.home, "bob")  # what `bullpen mcp` does at tools/list
    assert tick() == [note.id]
    wait_until(lambda: typed_lines(log), message="the note")


def test_a_server_that_never_connects_holds_notes_for_mcp_wait_at_most(room: Room) -> None:
    agent_files.mark_mcp_waiting(room.home, "bob")
    assert agent_files.mcp_connecting(room.home, "bob")
    later = time.time() + agent_files.MCP_WAIT + 1
    assert not agent_files.mcp_connecting(room.home, "bob", now=later)
    assert not agent_files.mcp_connecting(room.home, "nobody")  # launched without MCP
