"""Scripted model servers on 127.0.0.1, for driving a real agent offline.

Two wire formats, one behaviour: `FakeModel` speaks OpenAI chat completions (Hermes),
`FakeAnthropic` speaks Anthropic Messages (Claude Code). Each streams Server-Sent Events
for the agent's main requests (those offering tools) and decides the answer with a
`respond(request)` callable, so a test scripts each step from what the agent sent.
Requests without tools (titles, topic checks) get a short plain answer and are kept
apart. Every main request is kept with whether its answer was streamed to the end: a
turn the agent cut short (an interrupt) shows as `finished=False` in `exchanges()`.

Each answer reports token usage that differs per answer (`usage_of(number)`), and the
server keeps what it reported (`Exchange.usage`, `reported`), so a test can check that
bullpen's spend, read from the agent's own records, is exactly what the model said.

`hold()` makes the next answers wait until `release()`, so a test can keep the agent
busy for exactly as long as it needs (no timing guesses); `hold(matching)` holds only
the requests `matching(request)` picks (one session's, or a side agent's).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "stub-model"
HOLD_LIMIT = 120.0  # seconds a held answer waits at most, so a failed test cannot hang


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


@dataclass
class Exchange:
    """One main request and whether its streamed answer reached the agent whole."""

    request: dict
    reply: Reply | None = None
    finished: bool = False
    ended: bool = False  # its stream is over, whole or cut short
    credential: str = ""  # the Authorization or x-api-key header the agent sent
    received_at: float = field(default_factory=time.time)  # when the request came in
    usage: dict[str, int] = field(default_factory=dict)  # what its answer reported


class _ScriptedServer:
    """The HTTP side shared by both formats; subclasses say how to answer."""

    def __init__(self, respond: Responder) -> None:
        self.respond = respond
        self.other_requests: list[dict] = []  # requests without tools (titles and such)
        self.other_usage: list[dict[str, int]] = []  # the usage each of those reported
        self._exchanges: list[Exchange] = []
        self._lock = threading.Lock()
        self._gate = threading.Condition()
        self._held: Callable[[dict], bool] | None = None  # None: nothing is held
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def address(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
        self._server.shutdown()
        self._server.server_close()

    def hold(self, matching: Callable[[dict], bool] | None = None) -> None:
        """Answers to main requests (those `matching` picks) wait from now on; requests
        already waiting that `matching` no longer picks go on."""
        with self._gate:
            self._held = matching or (lambda request: True)
            self._gate.notify_all()

    def release(self) -> None:
        with self._gate:
            self._held = None
            self._gate.notify_all()

    def _wait_if_held(self, body: dict) -> None:
        with self._gate:
            self._gate.wait_for(lambda: self._held is None or not self._held(body),
                                timeout=HOLD_LIMIT)

    def exchanges(self) -> list[Exchange]:
        with self._lock:
            return list(self._exchanges)

    def timed(self) -> list[tuple[float, dict]]:
        """(when it came in, request) of every main request, oldest first."""
        with self._lock:
            return [(exchange.received_at, exchange.request) for exchange in self._exchanges]

    def snapshot(self) -> list[dict]:
        """The main requests so far, in order."""
        return [exchange.request for exchange in self.exchanges()]

    def waiting(self) -> int:
        """Main requests whose answer is not streamed to its end yet (held, being decided
        or still being written): `finished` is only final once this is 0."""
        return sum(1 for exchange in self.exchanges() if not exchange.ended)

    def reported(self, picked: Callable[[dict], bool] = lambda request: True,
                 with_others: bool = False) -> dict[str, int]:
        """The usage summed over the answers to the main requests `picked` chooses (and
        to the requests without tools, `with_others`), as each answer reported it."""
        rows = [exchange.usage for exchange in self.exchanges()
                if exchange.ended and picked(exchange.request)]
        if with_others:
            with self._lock:
                rows += list(self.other_usage)
        total = {key: 0 for key in usage_of(0)}
        for row in rows:
            for key, value in row.items():
                total[key] += value
        return total

    # -- per format ----------------------------------------------------------------------

    def is_chat_path(self, path: str) -> bool:
        raise NotImplementedError

    def stream(self, reply: Reply, number: int) -> list[str]:
        """The SSE lines (each ending in a blank line) for one reply."""
        raise NotImplementedError

    def plain(self, body: dict) -> dict:
        """The JSON answer to a request without tools."""
        raise NotImplementedError

    # -- HTTP ----------------------------------------------------------------------------

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def _json(self, status: int, document: dict) -> None:
                data = json.dumps(document).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                self._json(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if not model.is_chat_path(self.path.split("?")[0]):
                    self._json(404, {"error": {"message": "not found"}})
                    return
                body = json.loads(raw or b"{}")
                if not body.get("tools"):
                    with model._lock:
                        model.other_requests.append(body)
                        model.other_usage.append(usage_of(0))
                    if body.get("stream"):
                        self._stream(model.stream(Text("Scripted session"), 0))
                    else:
                        self._json(200, model.plain(body))
                    return
                credential = self.headers.get("Authorization") or self.headers.get(
                    "x-api-key") or ""
                exchange = Exchange(body, credential=credential)
                with model._lock:
                    model._exchanges.append(exchange)
                    number = len(model._exchanges)
                try:
                    model._wait_if_held(body)
                    exchange.reply = model.respond(body)
                    exchange.usage = usage_of(number)
                    exchange.finished = self._stream(model.stream(exchange.reply, number))
                finally:
                    exchange.ended = True

            def _stream(self, lines: list[str]) -> bool:
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Cache-Control", "no-cache")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    for line in lines:
                        self.wfile.write(line.encode())
                        self.wfile.flush()
                except OSError:  # the agent hung up: its turn was cut short
                    return False
                finally:
                    self.close_connection = True
                return True

        return Handler


def usage_of(number: int) -> dict[str, int]:
    """The tokens answer `number` reports (0: an answer to a request without tools):
    different for every answer, so a sum that counted one twice or missed one is caught.
    `input` is the uncached input; `cache_read` and `cache_write` the cached parts."""
    return {"input": 100 + 7 * number, "output": 10 + 3 * number,
            "cache_read": 50 * number, "cache_write": 20 if number == 1 else 0}


class FakeModel(_ScriptedServer):
    """OpenAI chat completions (`POST /v1/chat/completions`), as Hermes calls them."""

    @property
    def base_url(self) -> str:
        return self.address + "/v1"

    @property
    def requests(self) -> list[dict]:
        return self.snapshot()

    def is_chat_path(self, path: str) -> bool:
        return path.rstrip("/").endswith("/chat/completions")

    def stream(self, reply: Reply, number: int) -> list[str]:
        return [f"data: {event if isinstance(event, str) else json.dumps(event)}\n\n"
                for event in sse_events(reply, number)]

    def plain(self, body: dict) -> dict:
        return {"id": "chatcmpl-title", "object": "chat.completion",
                "created": int(time.time()), "model": MODEL,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": "Scripted session"}}],
                "usage": _openai_usage(usage_of(0))}


def _openai_usage(usage: dict[str, int]) -> dict:
    """OpenAI's form: prompt_tokens counts the cached ones too; the details split out
    cache reads (`cached_tokens`) and, as some compatible gateways do, cache writes."""
    prompt = usage["input"] + usage["cache_read"] + usage["cache_write"]
    return {"prompt_tokens": prompt, "completion_tokens": usage["output"],
            "total_tokens": prompt + usage["output"],
            "prompt_tokens_details": {"cached_tokens": usage["cache_read"],
                                      "cache_write_tokens": usage["cache_write"]}}


def _chunk(number: int, delta: dict, finish: str | None = None) -> dict:
    return {"id": f"chatcmpl-{number}", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": MODEL,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def sse_events(reply: Reply, number: int) -> list[dict | str]:
    """The OpenAI SSE payloads for one streamed reply, `[DONE]` last."""
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
    usage["usage"] = _openai_usage(usage_of(number))
    events.append(usage)
    events.append("[DONE]")
    return events


class FakeAnthropic(_ScriptedServer):
    """Anthropic Messages (`POST /v1/messages`), as Claude Code calls them."""

    @property
    def base_url(self) -> str:
        return self.address  # Claude appends /v1/messages itself

    def is_chat_path(self, path: str) -> bool:
        return path.rstrip("/").endswith("/v1/messages")

    def stream(self, reply: Reply, number: int) -> list[str]:
        return [f"event: {event['type']}\ndata: {json.dumps(event)}\n\n"
                for event in anthropic_events(reply, number)]

    def plain(self, body: dict) -> dict:
        return {"id": "msg_plain", "type": "message", "role": "assistant", "model": MODEL,
                "content": [{"type": "text", "text": "Scripted session"}],
                "stop_reason": "end_turn", "stop_sequence": None,
                "usage": _anthropic_usage(usage_of(0))}


def _anthropic_usage(usage: dict[str, int], output: int | None = None) -> dict:
    return {"input_tokens": usage["input"],
            "cache_creation_input_tokens": usage["cache_write"],
            "cache_read_input_tokens": usage["cache_read"],
            "output_tokens": usage["output"] if output is None else output}


def anthropic_events(reply: Reply, number: int) -> list[dict]:
    """The Anthropic SSE events for one streamed reply, `message_stop` last."""
    start = {"type": "message_start", "message": {
        "id": f"msg_{number}", "type": "message", "role": "assistant", "model": MODEL,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": _anthropic_usage(usage_of(number), output=1)}}
    if isinstance(reply, Text):
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": reply.text}
        stop_reason = "end_turn"
    else:
        block = {"type": "tool_use", "id": f"toolu_{number:04d}", "name": reply.name,
                 "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(reply.arguments)}
        stop_reason = "tool_use"
    return [start,
            {"type": "content_block_start", "index": 0, "content_block": block},
            {"type": "content_block_delta", "index": 0, "delta": delta},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": stop_reason,
                                                "stop_sequence": None},
             "usage": {"output_tokens": usage_of(number)["output"]}},
            {"type": "message_stop"}]


def _text_of(content: object) -> str:
    if isinstance(content, list):
        return " ".join(part.get("text", "") or _text_of(part.get("content"))
                        for part in content if isinstance(part, dict))
    return str(content or "")


def conversation(request: dict) -> list[dict]:
    """The request's user, assistant and tool messages, without those of role system:
    Claude 2.1.250 and 2.1.300 put one after the prompt and after each tool result
    (`<total_tokens>… tokens left</total_tokens>`), so a script that read the last
    message saw no tool result and called its tool again, ~800 times."""
    return [message for message in request.get("messages", [])
            if message.get("role") in ("user", "assistant", "tool")]


def last_message(request: dict) -> dict:
    """The last user, assistant or tool message: the turn a script answers ({} if none)."""
    messages = conversation(request)
    return messages[-1] if messages else {}


def answered_tool(request: dict) -> bool:
    """Whether the last turn is a tool's result (either format), system messages after
    it aside: the script's tool call came back."""
    last = last_message(request)
    content = last.get("content")
    return last.get("role") == "tool" or (isinstance(content, list) and any(
        isinstance(part, dict) and part.get("type") == "tool_result" for part in content))


def mcp_tool_named(text: str, server: str, tool: str) -> bool:
    """Whether `text` names MCP tool `tool` of `server` as any release spells it:
    `mcp__bullpen__notebook_write` (Claude, Hermes 0.19), `mcp_bullpen_notebook_write`
    (Hermes 0.17's `<untrusted_tool_result source=…>` wrapper)."""
    return re.search(rf"mcp_{{1,2}}{server}_{{1,2}}{tool}\b", text) is not None


def last_user_text(request: dict) -> str:
    """The text of the last user message that is not only tool results (both formats)."""
    for message in reversed(request.get("messages", [])):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, list) and content and all(
                isinstance(part, dict) and part.get("type") == "tool_result" for part in content):
            continue
        return _text_of(content)
    return ""


def tool_results_since_user(request: dict) -> int:
    """How many tool results follow the last user message (the step within a turn)."""
    count = 0
    for message in reversed(conversation(request)):
        content = message.get("content")
        results = [part for part in content if isinstance(part, dict)
                   and part.get("type") == "tool_result"] if isinstance(content, list) else []
        if message.get("role") == "tool":
            count += 1
        elif message.get("role") == "user" and results:
            count += len(results)
        elif message.get("role") == "user":
            break
    return count


def all_text(request: dict) -> str:
    """Every piece of text in a request (messages and system), for `in` checks."""
    return json.dumps(request, ensure_ascii=False)


# -- the research -> code -> review room the real-client tests script -------------------
# Each agent names its tools its own way, so each test passes the coder's file read and
# commit as that agent's tool calls; the rest of every step is the same for all of them.

READY = re.compile(r"task #(\d+) is ready")
COMMIT = ("echo v2 > src/v2.py && git add src/v2.py && git commit -qm 'coder: v2 endpoint'")


def session_of(request: dict) -> str:
    """Which session asks: its worktree is in the agent's working directory."""
    found = re.search(r"worktrees/([a-z0-9_-]+)", all_text(request))
    return found.group(1) if found else "?"


def note_id(request: dict, sender: str, marker: str) -> int:
    """The id of `sender`'s note holding `marker`, as the agent was shown it (-1: not)."""
    # Typed: `[note #5 from research] TEXT`; from a hook: `[bullpen note 5 from research]`
    # with the body on the next line, indented (a JSON-escaped newline here).
    found = re.search(rf"note #?(\d+) from {sender}\]?(?:\\n|\s)+{marker}",
                      all_text(request))
    return int(found.group(1)) if found else -1


def research_turn(task: int, step: int) -> Reply:
    """Research's turn on its ready task: claim, notebook (one entry private), a note to
    coder, done with its summary."""
    return [ToolCall("mcp__bullpen__task_claim", {"id": task}),
            ToolCall("mcp__bullpen__notebook_write", {"text": "SHARED-R: /v2 is hot"}),
            ToolCall("mcp__bullpen__notebook_write",
                     {"text": "PRIVATE-R: doubts", "private": True}),
            ToolCall("mcp__bullpen__send_note", {"to": "coder", "text": "NOTE-R cache"}),
            ToolCall("mcp__bullpen__task_done", {"id": task, "summary": "SUMMARY-R"}),
            Text("research done")][min(step, 5)]


def coder_turn(request: dict, task: int, step: int, read: ToolCall,
               commit: ToolCall) -> Reply:
    """Coder's turn after the handoff: claim, read research's notebook, `read`
    src/app.py, answer research's note by its id, `commit` (COMMIT), done."""
    return [ToolCall("mcp__bullpen__task_claim", {"id": task}),
            ToolCall("mcp__bullpen__notebook_read", {"session": "research"}),
            read,
            ToolCall("mcp__bullpen__send_note",
                     {"to": "research", "text": "thanks",
                      "reply_to": note_id(request, "research", "NOTE-R")}),
            commit,
            ToolCall("mcp__bullpen__task_done", {"id": task, "summary": "SUMMARY-C"}),
            Text("coder done")][min(step, 6)]
