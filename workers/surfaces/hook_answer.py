"""One hook request answered against the store, as the command hook answers it.

A call before a tool runs is answered first, before the store is touched, as the command
hook answers it (workers.surfaces.pre_tool_hook): a refusal on any failure.

The handlers are `hooks.answer`'s, run inside one write transaction that commits only
after the answer was sent: a caller that left before its answer (its timeout passed, it
was killed) has been handed nothing. Refusals go to the server's sampled log.
"""

from __future__ import annotations

import contextlib
import logging
import socket
from pathlib import Path
from typing import Protocol

from board.connection import Connection
from board.db import write
from board.errors import BadInput, BullpenError, NotFound, Refused
from board.identity import Caller, resolve_caller, resolve_hook_caller
from board.room import Room
from board.vocabulary import IdentityVariable
from workers import logs
from workers.agents import pre_tool
from workers.surfaces import hook_http, hooks, pre_tool_hook

log = logging.getLogger(__name__)

PATH_PREFIX = "/hook/"
SESSION_HEADER = "X-Bullpen-Session"
TOKEN_HEADER = "X-Bullpen-Token"
HOOK_KEY_HEADER = "X-Bullpen-Hook-Key"


class Server(Protocol):
    """What answering needs of the hook server."""

    home: Path

    def store(self) -> Connection: ...

    def drop_store(self) -> None: ...

    def refused(self, identity: dict[str, str], kind: str, message: str) -> None: ...


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


def answer(server: Server, sock: socket.socket, request: hook_http.Request) -> None:
    kind = request.path.removeprefix(PATH_PREFIX)
    identity: dict[str, str] = {IdentityVariable.HOME: str(server.home),
                                IdentityVariable.SESSION: request.header(SESSION_HEADER),
                                IdentityVariable.TOKEN: request.header(TOKEN_HEADER),
                                IdentityVariable.HOOK_KEY: request.header(HOOK_KEY_HEADER)}
    if not request.path.startswith(PATH_PREFIX) or not hooks.knows(kind):
        server.refused(identity, logs.clip(kind, 40), "no such hook")
        _reply(sock, 404)
        return
    # Bytes that are not UTF-8 must reach the command check as they are (and refuse it).
    raw = request.body.decode("utf-8", errors="surrogateescape")
    if _answered_before_the_store(kind, raw, identity, sock):
        return
    sent = False
    try:
        payload = hooks.decode(request.body.decode("utf-8", errors="replace"))
        if not identity[IdentityVariable.SESSION]:
            raise Refused(f"no {SESSION_HEADER} header")
        conn = server.store()
        with write(conn):  # commits only once the answer is out
            room = Room(server.home, conn, _caller(conn, kind, payload, identity))
            output = hooks.answer(kind, payload, room)
            if _caller_left(sock):
                raise BrokenPipeError  # e.g. its timeout passed: take nothing back
            _reply(sock, 200, output)
            sent = True
    except (BrokenPipeError, ConnectionResetError, TimeoutError):
        hooks.log_line(identity, kind, "the agent left before the answer; nothing taken")
    except (Refused, NotFound) as error:  # not this session, or not its token
        server.refused(identity, kind, str(error))
        if not sent:
            _reply(sock, 403)
    except BadInput as error:  # before the caller is known: anyone may send these
        server.refused(identity, kind, str(error))
        _reply(sock, 200)
    except BullpenError as error:
        hooks.log_line(identity, kind, str(error))
        if not sent:
            _reply(sock, 200)  # as the command hook: never disturb the agent
    except Exception as error:
        server.drop_store()
        log.warning("a hook request failed", exc_info=True)
        hooks.log_line(identity, kind, f"unexpected {type(error).__name__}: {error}")
        if not sent:
            _reply(sock, 200)


def _answered_before_the_store(kind: str, text: str, identity: dict[str, str],
                               sock: socket.socket) -> bool:
    """A call before a tool runs, answered from the session's patterns file alone (its
    refusal audited later, for the identity it proves): True once answered. Told by the
    event's name in the text, as the command hook tells it (the agents never escape it)."""
    if not pre_tool.might_be_pre_tool(text):
        return False
    try:
        decided = pre_tool_hook.answer(kind, text, identity)
    except Exception as error:  # answer itself never fails open: refuse what it asked
        log.warning("a pre-tool hook request failed", exc_info=True)
        decided = pre_tool_hook.refusal_reply(kind, text, error)
    if decided is pre_tool_hook.NOT_PRE_TOOL:
        return False
    _reply(sock, 200, decided)
    return True


def _caller_left(sock: socket.socket) -> bool:
    """Whether the caller closed its end (it sends nothing after its request)."""
    timeout = sock.gettimeout()
    sock.setblocking(False)  # a timeout would make recv wait for data first
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except BlockingIOError:
        return False  # still there, waiting for the answer
    except OSError:
        return True
    finally:
        sock.settimeout(timeout)


def _reply(sock: socket.socket, status: int, text: str = "") -> None:
    """The answer in one write: its status line, headers and body go out together."""
    with contextlib.suppress(OSError):
        sock.sendall(hook_http.response(status, text))
