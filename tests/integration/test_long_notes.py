"""A long note typed into a pane is cut, and its end stays reachable by its recipient:
the typed line names `bullpen note show ID`, which (like the MCP tool `show_note`)
returns it whole, though the typed note already counts as read."""

from __future__ import annotations

import json
from pathlib import Path

from board import notes, sessions
from board.identity import Caller
from board.room import Room
from tests.cli_runner import identity, run_cli
from tests.integration.test_mcp import call, mcp_client
from tests.waiting import wait_until
from workers.agents.adapter import AgentState
from workers.agents.kinds import adapter_for
from workers.coordinator.delivery import Deliverer
from workers.coordinator.status import PaneStatus
from workers.tmux.panes import snapshot_all

IDLE = PaneStatus(AgentState.IDLE, since=0.0, input_text="")
TAIL = "and the last step: run the migration twice, it must be idempotent. END-OF-NOTE"


def long_body() -> str:
    words = "the parser keeps its state per file, so a second pass is cheap; "
    body = (words * 40)[: 2000 - len(TAIL) - 1] + " " + TAIL
    assert len(body) == 2000
    return body


async def test_a_cut_typed_note_names_note_show_and_its_tail_is_reachable_both_ways(
        room: Room, git_repo: Path, agent_pane) -> None:
    server, pane, log = agent_pane
    bob = identity(room.home, "bob", sessions.register(room.conn, "bob"))
    carol = identity(room.home, "carol", sessions.register(room.conn, "carol"))
    note = notes.send(room.conn, Caller("operator"), "bob", long_body())
    deliverer = Deliverer(room.conn, server)
    assert deliverer.deliver(sessions.get(room.conn, "bob"), adapter_for("python3", "type"),
                             IDLE, snapshot_all(server)[pane]) == [note.id]
    wait_until(lambda: log.exists() and log.read_text(), message="bob reads the line")
    line = json.loads(log.read_text().splitlines()[0])["line"]
    assert line.endswith(f"… (full text: bullpen note show {note.id})")
    assert "END-OF-NOTE" not in line

    # Typed counts as read: the inbox no longer has it, `note show` does, whole.
    assert run_cli("note", "inbox", cwd=git_repo, env=bob).stdout.strip() == "no new notes"
    shown = run_cli("note", "show", str(note.id), cwd=git_repo, env=bob)
    assert shown.returncode == 0 and TAIL in shown.stdout
    async with mcp_client(bob, git_repo) as client:
        assert await call(client, "inbox") == []
        whole = await call(client, "show_note", id=note.id)
        assert whole["id"] == note.id and whole["body"].endswith(TAIL)
        assert len(whole["body"]) == 2000 and whole["header"].startswith(f"[note #{note.id}")

    # Another session gets neither the note nor a hint of its text.
    refused = run_cli("note", "show", str(note.id), cwd=git_repo, env=carol)
    assert refused.returncode == 2 and TAIL not in refused.stdout + refused.stderr
    async with mcp_client(carol, git_repo) as client:
        result = await client.call_tool("show_note", {"id": note.id})
        assert result.is_error and "END-OF-NOTE" not in result.content[0].text
        assert f"note {note.id} does not exist or was not sent to carol" in \
            result.content[0].text
