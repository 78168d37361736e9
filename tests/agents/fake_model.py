"""A scripted OpenAI-compatible model server on 127.0.0.1, for driving a real agent offline.

Streaming chat requests get Server-Sent Events (`chat.completion.chunk` lines, tool-call
deltas, a finish chunk, a usage chunk, `[DONE]`), as Hermes requires; a non-streaming
request (Hermes' title call) gets one plain completion; anything else (model probes) 404.
What to answer is decided by a `respond(request)` callable, so a test scripts each turn
from what the agent sent. Every request body is kept, in order, for assertions.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "stub-model"


@dataclass(frozen=True)
class Text:
    """The assistant answers with text and ends its turn."""

    text: str


@dataclass(frozen=True)
class ToolCall:
    """The assistant calls one tool."""

    name: str
    arguments: dict = field(default_factory=dict)


Reply = Text | ToolCall
Responder = Callable[[dict], Reply]


def _chunk(number: int, delta: dict, finish: str | None = None) -> dict:
    return {"id": f"chatcmpl-{number}", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": MODEL,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def sse_events(reply: Reply, number: int) -> list[dict | str]:
    """The SSE payloads for one streamed reply, `[DONE]` last."""
    events: list[dict | str] = [_chunk(number, {"role": "assistant", "content": ""})]
    if isinstance(reply, Text):
        events.append(_chunk(number, {"content": reply.text}))
        finish = "stop"
    else:
        call = {"index": 0, "id": f"call_{number}", "type": "function",
                "function": {"name": reply.name, "arguments": ""}}
        events.append(_chunk(number, {"tool_calls": [call]}))
        arguments = {"index": 0, "function": {"arguments": json.dumps(reply.arguments)}}
        events.append(_chunk(number, {"tool_calls": [arguments]}))
        finish = "tool_calls"
    events.append(_chunk(number, {}, finish))
    usage = _chunk(number, {})
    usage["choices"] = []
    usage["usage"] = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
    events.append(usage)
    events.append("[DONE]")
    return events


class FakeModel:
    """The server; use as a context manager. `base_url` goes into the agent's config."""

    def __init__(self, respond: Responder) -> None:
        self.respond = respond
        self.requests: list[dict] = []  # streamed chat requests, in order
        self.other_requests: list[dict] = []  # non-streamed (title) requests
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def snapshot(self) -> list[dict]:
        with self._lock:
            return list(self.requests)

    def _answer(self, body: dict) -> tuple[int, list[dict | str] | dict]:
        with self._lock:
            if not body.get("stream"):
                self.other_requests.append(body)
                return 0, {"id": "chatcmpl-title", "object": "chat.completion",
                           "created": int(time.time()), "model": MODEL,
                           "choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant",
                                                    "content": "Scripted session"}}],
                           "usage": {"prompt_tokens": 10, "completion_tokens": 2,
                                     "total_tokens": 12}}
            self.requests.append(body)
            number = len(self.requests)
        return number, sse_events(self.respond(body), number)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def _not_found(self) -> None:
                body = b'{"error": {"message": "not found"}}'
                self.send_response(404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                self._not_found()

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._not_found()
                    return
                number, answer = model._answer(json.loads(raw or b"{}"))
                if isinstance(answer, dict):
                    data = json.dumps(answer).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for event in answer:
                    payload = event if isinstance(event, str) else json.dumps(event)
                    self.wfile.write(f"data: {payload}\n\n".encode())
                    self.wfile.flush()
                self.close_connection = True

        return Handler


def last_user_text(request: dict) -> str:
    """The text of the last user message of a chat request."""
    for message in reversed(request.get("messages", [])):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                return " ".join(part.get("text", "") for part in content
                                if isinstance(part, dict))
            return str(content or "")
    return ""


def tool_results_since_user(request: dict) -> int:
    """How many tool results follow the last user message (the step within a turn)."""
    count = 0
    for message in reversed(request.get("messages", [])):
        if message.get("role") == "user":
            break
        if message.get("role") == "tool":
            count += 1
    return count
