"""The MCP server's stdio wire, with every line checked before the SDK sees it.

The SDK parses each line with pydantic, which refuses a JSON string holding a lone
surrogate (`"\\ud800"`: valid JSON text, not valid Unicode) and bytes that are not UTF-8;
it then drops the message without an answer, and the client waits for ever. Here each
line is decoded and checked first: a bad one gets a JSON-RPC error naming what is wrong
(with the request's id when it has one), a good one goes to the SDK unchanged.

While serving, fd 0 reads /dev/null and fd 1 writes to stderr (as the SDK's own stdio
transport does), so stray output from a library cannot corrupt the wire.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from collections.abc import Iterator
from typing import IO, Any, NamedTuple

import anyio
import anyio.to_thread
from mcp.server.stdio import stdio_server

PARSE_ERROR = -32700  # JSON-RPC: the line is not JSON
INVALID_PARAMS = -32602  # JSON-RPC: the request's values are unusable
NOT_UTF8 = "the message is not valid UTF-8; send UTF-8 JSON, one message a line"
LONE_SURROGATE = ("a string holds a lone surrogate (half of a UTF-16 pair, e.g. \\ud800),"
                  " which is not text; send valid Unicode")


class Verdict(NamedTuple):
    """What to do with one line: hand it to the SDK, or not, and what to answer."""

    forward: bool
    answer: dict[str, Any] | None = None


PASS = Verdict(forward=True)


def check_line(raw: bytes) -> Verdict:
    """Whether the SDK can take line `raw`, and the JSON-RPC error answering it if not
    (none for a notification: JSON-RPC never answers those)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return Verdict(False, _error(None, PARSE_ERROR, NOT_UTF8))
    if "\\u" not in text:
        return PASS  # no escape, no surrogate: the common case costs one scan
    try:
        message = json.loads(text)  # unlike pydantic, accepts lone surrogates
    except ValueError:
        return PASS  # not JSON: the SDK answers or logs that itself
    try:
        json.dumps(message, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        if isinstance(message, dict) and "id" not in message:
            return Verdict(False)  # a notification: nothing to answer
        return Verdict(False, _error(_request_id(message), INVALID_PARAMS, LONE_SURROGATE))
    return PASS


def _request_id(message: object) -> object:
    """The id to answer with: the request's, when it is one the client can match."""
    if not isinstance(message, dict):
        return None
    found = message.get("id")
    if isinstance(found, bool) or not isinstance(found, int | str):
        return None
    if isinstance(found, str):
        try:
            found.encode("utf-8")
        except UnicodeEncodeError:
            return None
    return found


def _error(request_id: object, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


class Wire:
    """The client's end: one writer at a time, each message whole, then flushed."""

    def __init__(self, out: IO[bytes]) -> None:
        self._out = out
        self._lock = threading.Lock()

    def _write_now(self, text: str) -> None:
        with self._lock:
            self._out.write(text.encode("utf-8"))
            self._out.flush()

    async def write(self, text: str) -> None:
        await anyio.to_thread.run_sync(self._write_now, text)

    async def flush(self) -> None:
        """Each write is flushed already."""


class CheckedLines:
    """The lines of the client's input the SDK can parse; the others are answered."""

    def __init__(self, source: IO[bytes], wire: Wire) -> None:
        self._source = source
        self._wire = wire

    def __aiter__(self) -> CheckedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            raw = await anyio.to_thread.run_sync(self._source.readline)
            if not raw:
                raise StopAsyncIteration
            if not raw.strip():
                continue
            verdict = check_line(raw)
            if verdict.forward:
                return raw.decode("utf-8")
            if verdict.answer is not None:
                await self._wire.write(json.dumps(verdict.answer, separators=(",", ":")) + "\n")


@contextlib.contextmanager
def _claimed_std_streams() -> Iterator[tuple[IO[bytes], IO[bytes]]]:
    """The wire's own copies of fd 0 and 1, with 0 and 1 pointed away meanwhile."""
    sys.stdout.flush()
    wire_in, wire_out = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    os.close(null)
    try:
        with os.fdopen(wire_in, "rb") as source, \
                os.fdopen(wire_out, "wb") as out:
            yield source, out
    finally:
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)


def serve_stdio(server: Any) -> None:
    """Run `server` (the SDK's MCPServer or FastMCP) on stdin/stdout, lines checked."""
    # The low-level server is what the SDK's own run_stdio_async drives (2.x / 1.x name).
    lowlevel = getattr(server, "_lowlevel_server", None) or server._mcp_server

    async def run() -> None:
        with _claimed_std_streams() as (source, out):
            wire = Wire(out)
            async with stdio_server(stdin=CheckedLines(source, wire),  # type: ignore[arg-type]
                                    stdout=wire) as (read, write):  # type: ignore[arg-type]
                await lowlevel.run(read, write, lowlevel.create_initialization_options())

    anyio.run(run)
