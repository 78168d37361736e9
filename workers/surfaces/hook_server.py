"""Agents' hooks over HTTP, served on 127.0.0.1 beside the coordinator.

Claude Code POSTs its hook payload to `http://127.0.0.1:PORT/hook/claude` (an HTTP hook
costs the agent about a millisecond; a command hook starts a Python process), and
`bullpen hook KIND` forwards to the same address when it answers. Each request names
its session in `X-Bullpen-Session` and proves it: the forwarder with `X-Bullpen-Token`
(the token's hash is compared as the command hook compares it), Claude's per-tool hook
with `X-Bullpen-Hook-Key`, which answers that hook only (board.identity.hook_key): Claude
sends it to whatever listens on the port, so it must not be worth more. The handlers are
the command hook's (`hooks.answer`), run inside one write transaction that commits only
after the answer was sent: a caller that left before its answer (its timeout passed, it
was killed) has been handed nothing.

The port is the one recorded in the room's home (`agent_files.HOOK_PORT`), so agents
launched earlier reach a restarted coordinator; a new one is recorded when it is taken.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from board.connection import Connection
from board.db import connect, write
from board.errors import BullpenError, NotFound, Refused
from board.home import DB_NAME
from board.identity import Caller, resolve_caller, resolve_hook_caller
from board.room import Room
from board.vocabulary import IdentityVariable
from workers.agents import agent_files
from workers.surfaces import hooks

log = logging.getLogger(__name__)

PATH_PREFIX = "/hook/"
SESSION_HEADER = "X-Bullpen-Session"
TOKEN_HEADER = "X-Bullpen-Token"
HOOK_KEY_HEADER = "X-Bullpen-Hook-Key"
MAX_BODY = 8 * 1024 * 1024  # a hook payload holds a tool's input and response


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True  # the recorded port again, right after a restart

    def __init__(self, home: Path, port: int) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.home = home
        self.lock = threading.Lock()  # one store connection, one call at a time
        self.conn: Connection | None = None

    def handle_error(self, request: object, client_address: object) -> None:
        """A request the stdlib could not handle: a log line, no traceback on stderr."""
        log.warning("a hook request from %s failed", client_address, exc_info=True)

    def store(self) -> Connection:
        if self.conn is None:
            self.conn = connect(self.home / DB_NAME)
        return self.conn


def _caller(conn: Connection, kind: str, payload: dict, identity: dict[str, str]) -> Caller:
    """The session the request proves: by its token, or (the per-tool hook only) by its
    hook key."""
    if identity[IdentityVariable.TOKEN] or not identity[IdentityVariable.HOOK_KEY]:
        return resolve_caller(conn, identity)
    if not hooks.is_per_tool_call(kind, payload):
        raise Refused(f"a hook key answers only the hook after a tool call, not {kind}"
                      f" {payload.get('hook_event_name')!r}")
    return resolve_hook_caller(conn, identity[IdentityVariable.SESSION],
                               identity[IdentityVariable.HOOK_KEY])


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
        kind = self.path.removeprefix(PATH_PREFIX)
        if not self.path.startswith(PATH_PREFIX) or kind not in hooks.HANDLERS:
            self._reply(404, "")
            return
        header = self.headers.get("Content-Length") or ""
        length = int(header) if header.isdigit() else 0
        if not 0 < length <= MAX_BODY:
            self._reply(413 if length else 400, "")
            return
        body = self.rfile.read(length).decode("utf-8", errors="replace")
        identity: dict[str, str] = {
            IdentityVariable.HOME: str(self.server.home),
            IdentityVariable.SESSION: self.headers.get(SESSION_HEADER) or "",
            IdentityVariable.TOKEN: self.headers.get(TOKEN_HEADER) or "",
            IdentityVariable.HOOK_KEY: self.headers.get(HOOK_KEY_HEADER) or ""}
        with self.server.lock:
            self._answer(kind, body, identity)

    def _answer(self, kind: str, body: str, identity: dict[str, str]) -> None:
        sent = False
        try:
            payload = hooks.decode(body)
            if not identity[IdentityVariable.SESSION]:
                raise Refused(f"no {SESSION_HEADER} header")
            conn = self.server.store()
            with write(conn):  # commits only once the answer is out
                room = Room(self.server.home, conn, _caller(conn, kind, payload, identity))
                output = hooks.answer(kind, payload, room)
                if self._caller_left():
                    raise BrokenPipeError  # e.g. its timeout passed: take nothing back
                self._reply(200, output)
                sent = True
        except (BrokenPipeError, ConnectionResetError):
            hooks.log_line(identity, kind, "the agent left before the answer; nothing taken")
        except (Refused, NotFound) as error:  # not this session, or not its token
            hooks.log_line(identity, kind, str(error))
            if not sent:
                self._reply(403, "")
        except BullpenError as error:
            hooks.log_line(identity, kind, str(error))
            if not sent:
                self._reply(200, "")  # as the command hook: never disturb the agent
        except Exception as error:
            self._drop_store()
            hooks.log_line(identity, kind, f"unexpected {type(error).__name__}: {error}")
            if not sent:
                self._reply(200, "")

    def _caller_left(self) -> bool:
        """Whether the caller closed its end (it sends nothing after its request)."""
        try:
            return self.connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except BlockingIOError:
            return False  # still there, waiting for the answer
        except OSError:
            return True

    def _reply(self, status: int, text: str) -> None:
        """The answer in one write: its status line, headers and body go out together."""
        data = text.encode()
        phrase = self.responses.get(status, ("",))[0]
        head = (f"{self.protocol_version} {status} {phrase}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n")
        self.wfile.write(head.encode() + data)
        self.wfile.flush()

    def _drop_store(self) -> None:
        """After an unexpected failure the connection may be broken: open a new one."""
        conn, self.server.conn = self.server.conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass  # one line per tool call would flood the coordinator's log


def _bind(home: Path) -> _Server:
    recorded = agent_files.hook_port(home)
    if recorded is not None:
        try:
            return _Server(home, recorded)
        except OSError as error:
            log.warning("hook port %d is taken (%s); agents launched with it must be"
                        " restarted to reach the coordinator's hooks", recorded, error)
    server = _Server(home, 0)
    agent_files.record_hook_port(home, server.server_address[1])
    return server


@contextlib.contextmanager
def serving(home: Path) -> Iterator[int | None]:
    """Serve the room's hooks on 127.0.0.1 while the block runs; yields the port (None
    when it could not be served: agents' command hooks still work)."""
    try:
        server = _bind(home)
    except OSError as error:
        log.error("hooks not served over HTTP: %s", error)
        yield None
        return
    thread = threading.Thread(target=server.serve_forever, name="bullpen-hooks",
                              kwargs={"poll_interval": 0.1}, daemon=True)  # stops within 0.1 s
    thread.start()
    log.info("serving agents' hooks on 127.0.0.1:%d", server.server_address[1])
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        with server.lock:  # a call still being answered finishes first
            if server.conn is not None:
                with contextlib.suppress(Exception):
                    server.conn.close()
            server.conn = None
