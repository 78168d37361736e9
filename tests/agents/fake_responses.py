"""A scripted OpenAI Responses API server on 127.0.0.1, as the Codex CLI calls it.

Codex (0.16x) speaks only the Responses wire format (`POST {base_url}/responses`, Server-
Sent Events): the conversation so far is `input` (user and assistant messages, function
calls and their outputs), and an answer is a stream of `response.*` events ending in
`response.completed`. The behaviour — `respond(request)`, `hold()`/`release()`, exchanges
kept with whether their stream reached the agent whole — is `fake_model`'s.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler

from tests.agents.fake_model import MODEL, Reply, Responder, Text, _ScriptedServer, usage_of


class FakeResponses(_ScriptedServer):
    """OpenAI Responses (`POST /v1/responses`), as Codex calls them.

    It is also the proxy Codex is given for everything else (`HTTPS_PROXY`): each
    `CONNECT host:port` is refused (403) and kept in `refused`, so a test sees exactly
    what the agent tried to reach outside 127.0.0.1 — and that none of it got out.
    """

    def __init__(self, respond: Responder) -> None:
        self.refused: list[str] = []
        super().__init__(respond)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        base = super()._handler()
        refused = self.refused

        class Handler(base):
            def do_CONNECT(self) -> None:  # noqa: N802 (http.server's naming)
                refused.append(self.path)
                self.send_response(403)
                self.send_header("Content-Length", "0")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True

        return Handler

    @property
    def base_url(self) -> str:
        return self.address + "/v1"

    def is_chat_path(self, path: str) -> bool:
        return path.rstrip("/").endswith("/responses")

    def stream(self, reply: Reply, number: int) -> list[str]:
        return [f"event: {event['type']}\ndata: {json.dumps(event)}\n\n"
                for event in response_events(reply, number)]

    def plain(self, body: dict) -> dict:
        return {"id": "resp_plain", "object": "response", "status": "completed",
                "model": MODEL, "output": [_message("plain", "Scripted session")]}


def _message(item: str, text: str) -> dict:
    return {"type": "message", "id": f"msg_{item}", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def _qualified(name: str) -> dict:
    """A tool's name as Codex expects it back: MCP tools are offered as a namespace
    (`mcp__bullpen`) holding plain names, so `mcp__bullpen__send_note` is called as
    namespace `mcp__bullpen`, name `send_note`."""
    if name.startswith("mcp__") and "__" in name[len("mcp__"):]:
        namespace, tool = name.rsplit("__", 1)
        return {"namespace": namespace, "name": tool}
    return {"name": name}


def response_events(reply: Reply, number: int) -> list[dict]:
    """The Responses SSE events for one reply, `response.completed` last."""
    response = {"id": f"resp_{number}", "object": "response", "model": MODEL,
                "status": "in_progress", "output": []}
    events: list[dict] = [{"type": "response.created", "response": response}]
    if isinstance(reply, Text):
        item = _message(str(number), reply.text)
        added = {**item, "content": [], "status": "in_progress"}
        events += [
            {"type": "response.output_item.added", "output_index": 0, "item": added},
            {"type": "response.output_text.delta", "item_id": item["id"], "output_index": 0,
             "content_index": 0, "delta": reply.text},
        ]
    else:
        item = {"type": "function_call", "id": f"fc_{number}", "call_id": f"call_{number}",
                **_qualified(reply.name), "arguments": json.dumps(reply.arguments),
                "status": "completed"}
        events.append({"type": "response.output_item.added", "output_index": 0,
                       "item": {**item, "arguments": "", "status": "in_progress"}})
    events.append({"type": "response.output_item.done", "output_index": 0, "item": item})
    # Responses' input counts the cached part; it reports no cache writes (plain input)
    tokens = usage_of(number)
    prompt = tokens["input"] + tokens["cache_read"] + tokens["cache_write"]
    usage = {"input_tokens": prompt,
             "input_tokens_details": {"cached_tokens": tokens["cache_read"]},
             "output_tokens": tokens["output"], "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": prompt + tokens["output"]}
    events.append({"type": "response.completed",
                   "response": {**response, "status": "completed", "output": [item],
                                "usage": usage}})
    return events


def user_texts(request: dict) -> list[str]:
    """The text of every user message in a Responses request, in order."""
    texts = []
    for item in request.get("input", []):
        if item.get("type", "message") == "message" and item.get("role") == "user":
            content = item.get("content")
            if isinstance(content, str):
                texts.append(content)
            else:
                texts.append(" ".join(part.get("text", "") for part in content or []
                                      if isinstance(part, dict)))
    return texts


def last_user_text(request: dict) -> str:
    """The last user message's text ("" without one)."""
    texts = user_texts(request)
    return texts[-1] if texts else ""


def outputs_since_user(request: dict) -> int:
    """How many function-call outputs follow the last user message (the step in a turn)."""
    count = 0
    for item in reversed(request.get("input", [])):
        if item.get("type") == "function_call_output":
            count += 1
        elif item.get("type", "message") == "message" and item.get("role") == "user":
            break
    return count


def tool_names(request: dict) -> list[str]:
    """The names of the tools offered in a request (function tools and namespaced ones)."""
    names = []
    for tool in request.get("tools", []):
        names.append(str(tool.get("name") or tool.get("type")))
        names += [str(inner.get("name")) for inner in tool.get("tools", []) or []
                  if isinstance(inner, dict)]
    return names
