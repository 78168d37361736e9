"""The MCP server's stdio wire, with every line checked before the SDK sees it.

The SDK parses each line with pydantic, which refuses a JSON string holding a lone
surrogate (`"\\ud800"`: valid JSON text, not valid Unicode), bytes that are not UTF-8, a
line that is not JSON, a batch, a request without a method and ~200 levels of nesting;
it then drops the message without an answer (the client waits for ever), and 3,000
levels raise a RecursionError that ends the server. Here each line is decoded, parsed
and checked first: a bad one gets the JSON-RPC error the spec names (with the
request's id when it has one; a notification gets none), a good one goes to the SDK
unchanged.

While serving, fd 0 reads /dev/null and fd 1 writes to stderr (as the SDK's own stdio
transport does), so stray output from a library cannot corrupt the wire.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from typing import IO, Any, NamedTuple

PARSE_ERROR = -32700  # JSON-RPC: the line is not JSON
INVALID_REQUEST = -32600  # JSON-RPC: JSON, but not a request the server can take
INVALID_PARAMS = -32602  # JSON-RPC: the request's values are unusable
MAX_DEPTH = 128  # nesting the SDK's parser takes (it drops ~200 levels unanswered)
TOO_DEEP = f"the message nests deeper than {MAX_DEPTH} levels"
NO_BATCHES = "batches are not part of MCP; send each message on its own line"
NOT_UTF8 = "the message is not valid UTF-8; send UTF-8 JSON, one message a line"
LONE_SURROGATE = ("a string holds a lone surrogate (half of a UTF-16 pair, e.g. \\ud800),"
                  " which is not text; send valid Unicode")


class Verdict(NamedTuple):
    """What to do with one line: hand it to the SDK, or not, and what to answer."""

    forward: bool
    answer: dict[str, Any] | list[dict[str, Any]] | None = None


PASS = Verdict(forward=True)


def check_line(raw: bytes) -> Verdict:
    """Whether the SDK can take line `raw`, and the JSON-RPC error answering it if not
    (none for a notification: JSON-RPC never answers those)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return Verdict(False, _error(None, PARSE_ERROR, NOT_UTF8))
    try:
        message = json.loads(text)  # unlike pydantic, accepts lone surrogates
    except RecursionError:
        return Verdict(False, _error(None, PARSE_ERROR, TOO_DEEP))
    except ValueError as error:
        return Verdict(False, _error(None, PARSE_ERROR, f"the message is not JSON ({error})"))
    if isinstance(message, list):
        return _batch(message)
    problem = _invalid(message)
    if problem is not None:
        if isinstance(message, dict) and "method" in message and "id" not in message:
            return Verdict(False)  # a notification: nothing to answer
        return Verdict(False, _error(_request_id(message), INVALID_REQUEST, problem))
    if "\\u" in text:  # only an escape can make a lone surrogate
        try:
            json.dumps(message, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            if "id" not in message:
                return Verdict(False)
            return Verdict(False, _error(_request_id(message), INVALID_PARAMS,
                                         LONE_SURROGATE))
    return PASS


def _invalid(message: object) -> str | None:
    """Why the SDK would drop `message` unanswered (None when it can take it)."""
    if not isinstance(message, dict):
        return "a message is a JSON object (JSON-RPC 2.0)"
    if message.get("jsonrpc") != "2.0":
        return 'a message says "jsonrpc": "2.0"'
    if _depth(message) > MAX_DEPTH:
        return TOO_DEEP
    if "method" not in message:
        if "id" in message and ("result" in message or "error" in message):
            return None  # the client's answer to a request of the server's
        return "a request names its method"
    if not isinstance(message["method"], str):
        return "a request's method is a string"
    if "id" in message and _request_id(message) is None:
        return "a request's id is a string or an integer"
    if not isinstance(message.get("params", {}), dict | None):
        return "a request's params are a JSON object"
    return None


def _depth(value: object) -> int:
    """How deep lists and objects nest in `value` (iterative: any depth is safe)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = (item.values() if isinstance(item, dict)
                    else item if isinstance(item, list) else None)
        if children is None:
            continue
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((child, level + 1) for child in children)
    return deepest


def _batch(messages: list) -> Verdict:
    """A JSON-RPC batch: MCP (2025-06-18) has none, so each request in it is answered
    with an error saying so, all in one array, as JSON-RPC answers a batch."""
    if not messages:
        return Verdict(False, _error(None, INVALID_REQUEST, "an empty batch"))
    answers = [_error(_request_id(item), INVALID_REQUEST, NO_BATCHES) for item in messages
               if not (isinstance(item, dict) and "method" in item and "id" not in item)]
    return Verdict(False, answers or None)


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


def serve_stdio(protocol: Any, on_tools_listed: Callable[[], None] | None = None) -> None:
    """Answer the client on stdin/stdout until it closes its end: every line checked
    (`check_line`), the rest answered by `protocol` (workers.surfaces.mcp_tools).
    `on_tools_listed` runs once, when the client has been sent the tools."""
    with _claimed_std_streams() as (source, out):
        for raw in source:
            if not raw.strip():
                continue
            verdict = check_line(raw)
            message = json.loads(raw) if verdict.forward else None
            answer = protocol.answer(message) if verdict.forward else verdict.answer
            if answer is not None:
                out.write(_encode(answer))
                out.flush()
            if on_tools_listed is not None and isinstance(message, dict) and \
                    message.get("method") == "tools/list":
                on_tools_listed()  # the agent knows bullpen's tools from now on
                on_tools_listed = None


def _encode(answer: object) -> bytes:
    """One line of UTF-8 JSON (escaped when a value cannot travel as UTF-8)."""
    try:
        text = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return json.dumps(answer, separators=(",", ":")).encode() + b"\n"
