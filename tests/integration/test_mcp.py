"""`bullpen mcp` spoken to with the official MCP client, as a real agent would."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from board import reads, sessions
from board.room import Room
from tests.cli_runner import BULLPEN, identity, run_cli
from workers.agents import agent_files
from workers.surfaces.mcp_server import TOOL_NAMES

pytestmark = pytest.mark.both_stores


@asynccontextmanager
async def mcp_client(env: Mapping[str, str], cwd: Path) -> AsyncIterator[ClientSession]:
    """A client session with a freshly started `bullpen mcp` subprocess."""
    params = StdioServerParameters(command=BULLPEN, args=["mcp"],
                                   env={**os.environ, **env}, cwd=str(cwd))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        yield client


async def call(client: ClientSession, tool: str, **arguments: object) -> object:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


async def test_tools_notes_and_privacy_across_two_sessions(room: Room, git_repo: Path) -> None:
    alice = identity(room.home, "alice", sessions.register(room.conn, "alice"))
    bob = identity(room.home, "bob", sessions.register(room.conn, "bob"))

    async with mcp_client(alice, git_repo) as client:
        listed = await client.list_tools()
        assert sorted(tool.name for tool in listed.tools) == sorted(TOOL_NAMES)
        note = await call(client, "send_note", to="bob", text="schema is in db/schema.sql")
        await call(client, "notebook_write", text="shared: the cache is warm")
        await call(client, "notebook_write", text="secret hunch: cache bug", private=True)
        recorded = await call(client, "record_read", paths=["src/app.py"])
        assert recorded == {"recorded": 1, "paths": ["src/app.py"]}

    async with mcp_client(bob, git_repo) as client:
        inbox = await call(client, "inbox")
        assert [(n["id"], n["sender"], n["body"]) for n in inbox] == [
            (note["id"], "alice", "schema is in db/schema.sql")]
        entries = await call(client, "notebook_read", session="alice")
        assert [e["body"] for e in entries] == ["shared: the cache is warm"]
        assert await call(client, "notebook_search", query="hunch") == []
        assert [e["body"] for e in await call(client, "notebook_search", query="cache")] == [
            "shared: the cache is warm"]
        reply = await call(client, "send_note", to="alice", text="thanks",
                           reply_to=note["id"])
        assert reply["reply_to"] == note["id"]

    assert [path for path, _ in reads.of_session(room.conn, "alice")] == ["src/app.py"]
    assert sessions.get(room.conn, "alice") is not None


async def test_board_errors_are_tool_errors_and_the_server_lives_on(
        room: Room, git_repo: Path) -> None:
    alice = identity(room.home, "alice", sessions.register(room.conn, "alice"))
    async with mcp_client(alice, git_repo) as client:
        result = await client.call_tool("send_note", {"to": "nobody", "text": "hi"})
        assert result.is_error
        assert result.content[0].text.endswith("unknown session 'nobody'; see bullpen ls")
        outside = await client.call_tool("record_read", {"paths": ["/etc/hostname"]})
        assert outside.is_error and "outside the repository" in outside.content[0].text
        task = await call(client, "task_add", title="write the parser")
        claimed = await call(client, "task_claim")
        assert claimed["id"] == task["id"] and claimed["status"] == "running"
        blocked = await call(client, "task_block", id=task["id"], reason="need the grammar")
        assert blocked["status"] == "blocked"
        again = await client.call_tool("task_done", {"id": 999})
        assert again.is_error and "unknown task 999" in again.content[0].text
        await call(client, "task_comment", id=task["id"], text="grammar found")
        assert [t["id"] for t in await call(client, "task_list")] == [task["id"]]
        assert await call(client, "alerts") == []


def test_wrong_token_refuses_to_start_with_one_line(room: Room, git_repo: Path) -> None:
    sessions.register(room.conn, "alice")
    result = run_cli("mcp", cwd=git_repo, env=identity(room.home, "alice", "forged"),
                     input="")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "bullpen: BULLPEN_TOKEN does not match session 'alice'; refused"]


async def test_b_cannot_finish_or_block_a_task_of_a_and_the_refusal_is_audited(
        room: Room, git_repo: Path) -> None:
    """Before, b finished a's task with the summary "stolen" and released its dependents."""
    a = identity(room.home, "a", sessions.register(room.conn, "a"))
    b = identity(room.home, "b", sessions.register(room.conn, "b"))
    async with mcp_client(a, git_repo) as client:
        task = await call(client, "task_add", title="research", assign="a")
        after = await call(client, "task_add", title="code", after=[task["id"]])
    async with mcp_client(b, git_repo) as client:
        for tool, extra in (("task_done", {"summary": "stolen"}),
                            ("task_block", {"reason": "mine now"})):
            result = await client.call_tool(tool, {"id": task["id"], **extra})
            assert result.is_error
            [line] = result.content[0].text.splitlines()
            assert "session 'b' may not" in line and f"task {task['id']}: it is a's" in line
        await call(client, "task_comment", id=task["id"], text="anyone may comment")
    board = {t["id"]: t["status"] for t in
             json.loads(run_cli("task", "ls", "--json", cwd=git_repo).stdout)}
    assert board == {task["id"]: "ready", after["id"]: "todo"}
    audited = json.loads(run_cli("audit", "--json", cwd=git_repo).stdout)
    assert [(e["actor"], e["action"], e["target"], e["outcome"]) for e in audited] == [
        ("b", "task finish", f"task {task['id']}", "refused"),
        ("b", "task block", f"task {task['id']}", "refused")]


async def test_the_server_records_that_the_agent_has_its_tools(room: Room,
                                                              git_repo: Path) -> None:
    """The first note to an agent launched with bullpen's MCP server waits for this."""
    alice = identity(room.home, "alice", sessions.register(room.conn, "alice"))
    agent_files.mark_mcp_waiting(room.home, "alice")  # what its launch wrote
    async with mcp_client(alice, git_repo) as client:
        assert agent_files.mcp_connecting(room.home, "alice")  # initialized, no tools yet
        await client.list_tools()
        await call(client, "inbox")  # the answer to tools/list came before this one's
        assert not agent_files.mcp_connecting(room.home, "alice")


async def test_send_note_says_its_chain_and_refuses_past_the_rate_as_a_tool_error(
        room: Room, git_repo: Path) -> None:
    from board import chains

    chains.set_limits(room.conn, chains.Limits(notes=1, rate=3))
    alice = identity(room.home, "alice", sessions.register(room.conn, "alice"))
    sessions.register(room.conn, "bob")
    async with mcp_client(alice, git_repo) as client:
        first = await call(client, "send_note", to="bob", text="one")
        assert (first["chain"]["id"], first["chain"]["state"]) == (first["id"], "open")
        second = await call(client, "send_note", to="bob", text="two", reply_to=first["id"])
        assert second["chain"]["state"] == "held"  # the second hop passes a limit of 1
        assert second["chain"]["reason"].startswith("loop suspected — alice↔bob, 2 notes")
        await call(client, "send_note", to="bob", text="three")
        refused = await client.call_tool("send_note", {"to": "bob", "text": "four"})
        assert refused.is_error
        assert refused.content[0].text.startswith(
            "note not sent: alice sent 3 notes in the last minute: the room's limit is 3/min")
