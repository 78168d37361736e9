"""MCP tools answer bad input with a clear error and keep serving: a lone surrogate in
a note (sent as raw JSON-RPC, as a buggy client would: the official client refuses to
encode one) gets a JSON-RPC error naming it, and so do bytes that are not UTF-8; ids of
2**63 and more get "too large"."""

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


def exchange(env: dict[str, str], cwd: Path, requests: list[dict | bytes],
             expect: set[int | None]) -> dict[int | None, dict]:
    """Send every request (json.dumps escapes a lone surrogate as \\ud800, which is
    valid JSON text) and collect the answers by id until those in `expect` are in."""
    server = subprocess.Popen([BULLPEN, "mcp"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              cwd=cwd, env={**os.environ, **env})
    answers: dict[int | None, dict] = {}
    try:
        for request in [*HANDSHAKE, *requests]:
            line = request if isinstance(request, bytes) else json.dumps(request).encode()
            server.stdin.write(line + b"\n")
        server.stdin.flush()
        while not expect <= set(answers):
            line = server.stdout.readline()  # the server answers or the test times out
            assert line, f"the server closed its output; answered {list(answers)}"
            message = json.loads(line)
            if "id" in message:
                assert message["id"] not in answers, f"answered twice: {message}"
                answers[message["id"]] = message
    finally:
        server.stdin.close()
        stderr = server.stderr.read().decode(errors="replace")
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
        # The SDK's own parser would drop these unanswered: bullpen answers each.
        call(1, "send_note", to="bob", text="half a pair \ud800 of surrogates"),
        b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name":'
        b' "send_note", "arguments": {"to": "bob", "text": "latin-1 caf\xe9"}}}',
        {"jsonrpc": "2.0", "method": "notifications/cancelled",  # never answered
         "params": {"requestId": 1, "reason": "\udfff"}},
        call(3, "task_done", id=2**63),
        call(4, "send_note", to="bob", text="hi", reply_to=2**64),
        call(5, "task_comment", id=2**63 + 5, text="x"),
        # A whole pair (json.dumps writes it \ud83d\ude00) is text and goes through.
        call(6, "send_note", to="bob", text="still answering \U0001F600"),
    ], expect={0, 1, None, 3, 4, 5, 6})
    assert answers[1]["error"]["code"] == -32602, answers[1]
    assert "lone surrogate" in answers[1]["error"]["message"]
    # A line that is not UTF-8 has no id anyone can trust: answered with id null.
    assert "not valid UTF-8" in answers[None]["error"]["message"], answers[None]
    for number in (3, 4, 5):
        assert "too large" in error_text(answers[number]), answers[number]
    assert not answers[6]["result"]["isError"]
    assert [n.body for n in notes.pending(room.conn, "bob")] == ["still answering \U0001F600"]


def test_every_line_it_can_parse_is_answered_and_nothing_it_cannot_ends_it(
        room: Room, git_repo: Path) -> None:
    """Each of these was dropped unanswered by the SDK (the client waits for ever), and
    3,000 levels of nesting ended the server: now each gets the spec's JSON-RPC error."""
    alice = identity(room.home, "alice", sessions.register(room.conn, "alice"))
    deep = {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "inbox", "arguments": {"x": json.loads("[" * 300 + "]" * 300)}}}
    lines = [b"[" * 3000 + b'"\\u0041"' + b"]" * 3000,  # RecursionError in json.loads
             b"this is not json",
             b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"},'
             b' {"jsonrpc": "2.0", "method": "notifications/x"}]',
             b"[]",
             b'{"jsonrpc": "2.0", "id": 2}',
             b'{"jsonrpc": "2.0", "id": 3, "method": 7}',
             json.dumps(deep).encode(),
             b'{"jsonrpc": "2.0", "id": 5, "method": "ping"}']
    server = subprocess.Popen([BULLPEN, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, cwd=git_repo, env={**os.environ, **alice})
    try:
        for line in [*(json.dumps(r).encode() for r in HANDSHAKE), *lines]:
            server.stdin.write(line + b"\n")
        server.stdin.flush()
        answers = [json.loads(server.stdout.readline()) for _ in range(1 + len(lines))][1:]
    finally:
        server.stdin.close()
        stderr = server.stderr.read().decode(errors="replace")
        returncode = server.wait(10)
    assert (returncode, stderr) == (0, "")
    errors = [(a["id"], a["error"]["code"]) if isinstance(a, dict) and "error" in a else a
              for a in answers]
    assert errors[:2] == [(None, -32700), (None, -32700)]
    assert "nests deeper than 128 levels" in answers[0]["error"]["message"]
    assert [(a["id"], a["error"]["code"]) for a in answers[2]] == [(1, -32600)]  # one array
    assert "batches" in answers[2][0]["error"]["message"]
    assert errors[3:7] == [(None, -32600), (2, -32600), (3, -32600), (4, -32600)]
    assert answers[7] == {"jsonrpc": "2.0", "id": 5, "result": {}}  # and it answers on
