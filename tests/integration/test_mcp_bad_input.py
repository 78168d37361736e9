"""MCP tools answer bad input with a clear error and keep serving: a lone surrogate in
a note (sent as raw JSON-RPC, as a buggy client would: the official client refuses to
encode one) must not end the server; ids of 2**63 and more get "too large"."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from board import notes, sessions
from board.room import Room
from tests.cli_runner import BULLPEN, identity

HANDSHAKE = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize",
     "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]


def call(number: int, tool: str, **arguments: object) -> dict:
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}


def exchange(env: dict[str, str], cwd: Path, requests: list[dict],
             expect: set[int]) -> dict[int, dict]:
    """Send every request (json.dumps escapes a lone surrogate as \\ud800, which is
    valid JSON text) and collect the answers by id until those in `expect` are in."""
    server = subprocess.Popen([BULLPEN, "mcp"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              cwd=cwd, env={**os.environ, **env})
    answers: dict[int, dict] = {}
    try:
        for request in [*HANDSHAKE, *requests]:
            server.stdin.write(json.dumps(request) + "\n")
        server.stdin.flush()
        while not expect <= set(answers):
            line = server.stdout.readline()  # the server answers or the test times out
            assert line, f"the server closed its output; answered {sorted(answers)}"
            message = json.loads(line)
            if "id" in message:
                answers[message["id"]] = message
    finally:
        server.stdin.close()
        stderr = server.stderr.read()
        server.wait(10)
    assert "Traceback" not in stderr, stderr
    return answers


def error_text(answer: dict) -> str:
    result = answer["result"]
    assert result["isError"], result
    return result["content"][0]["text"]


def test_bad_values_get_clear_tool_errors_and_the_server_answers_on(room: Room,
                                                                   git_repo: Path) -> None:
    alice = identity(room.home, "alice", sessions.register(room.conn, "alice"))
    sessions.register(room.conn, "bob")
    answers = exchange(alice, git_repo, [
        # The SDK's JSON parser drops a request holding a lone surrogate before any tool
        # runs (no answer to it); what matters here is that the server lives on.
        call(1, "send_note", to="bob", text="half a pair \ud800 of surrogates"),
        call(3, "task_done", id=2**63),
        call(4, "send_note", to="bob", text="hi", reply_to=2**64),
        call(5, "task_comment", id=2**63 + 5, text="x"),
        call(6, "send_note", to="bob", text="still answering"),
    ], expect={0, 3, 4, 5, 6})
    for number in (3, 4, 5):
        assert "too large" in error_text(answers[number]), answers[number]
    assert not answers[6]["result"]["isError"]
    assert [n.body for n in notes.pending(room.conn, "bob")] == ["still answering"]
