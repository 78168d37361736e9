"""`bullpen hook KIND`, the process an agent starts after every tool call and at each turn.

A call before a tool runs (Claude's PreToolUse, Hermes' pre_tool_call) is answered here
and now, from the session's patterns file (workers.surfaces.pre_tool_hook): never
forwarded, never waiting on the store, and a refusal on any failure.

When the room's coordinator serves hooks (workers.surfaces.hook_server, on the port in
`.bullpen/hooks.port`), the payload is forwarded to it over one local socket: this
process then imports nothing of bullpen's store and costs about what the interpreter
costs to start. When nothing answers on that port, the call is handled here as before
(`hooks.run_hook`), and so it is when the program that accepted the connection is not
this user's (another user's program that took the port while no coordinator held it must
get neither the session's token nor a say in the agent's context). Either way the agent
sees the same output and the hook exits 0.
"""

from __future__ import annotations

import os
import sys

from workers.agents.pre_tool import might_be_pre_tool

CONNECT_TIMEOUT = 0.5  # seconds: a coordinator on 127.0.0.1 accepts at once, or is not there
ANSWER_TIMEOUT = 8.0  # seconds: it answers in ms; under Hermes' 10 s hook timeout
NOT_SERVED = None
# Linux's sock_diag netlink (linux/sock_diag.h, linux/inet_diag.h): one socket's owner.
NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST = 1
ALL_STATES = 0xFFFFFFFF
NO_COOKIE = (0xFFFFFFFF, 0xFFFFFFFF)  # look the socket up by its addresses
UID_AT = 16 + 64  # netlink header, then inet_diag_msg up to idiag_uid


def main(kind: str, ends_process: bool = False) -> int:
    """Run one hook call read from stdin; always exit 0 (a hook never fails the agent).

    `ends_process`: this call is the whole process (the `bullpen` command), so a call
    handled here ends it at once, leaving the store's connection to the OS (board.room:
    SQLite would otherwise fold its log into the database when it is the last one)."""
    # Bytes, made text here: bytes that are not UTF-8 must reach the check, not raise.
    text = sys.stdin.buffer.read().decode("utf-8", errors="surrogateescape")
    if might_be_pre_tool(text):
        from workers.surfaces import pre_tool_hook

        try:
            decided = pre_tool_hook.answer(kind, text, os.environ)
        except Exception as error:  # a traceback here would be an allow
            decided = pre_tool_hook.refusal_reply(kind, text, error)
        if decided is not pre_tool_hook.NOT_PRE_TOOL:
            if decided:
                print(decided, flush=True)
            return 0
    output = forward(kind, text, os.environ)
    handled_here = output is NOT_SERVED
    if handled_here:
        from board import room
        from workers.surfaces.hooks import run_hook

        if ends_process:
            room.leave_stores_open()
        output = run_hook(kind, text)
    if output:
        print(output)
    if handled_here and ends_process:
        room.end_process(0)
    return 0


def _port(home: str) -> int | None:
    """agent_files.hook_port's rule, without importing it (pathlib and the agents package
    would cost this process more than the call itself)."""
    try:
        with open(os.path.join(home, "hooks.port")) as handle:  # agent_files.HOOK_PORT
            port = int(handle.read().strip())
    except (OSError, ValueError):
        return None
    return port if 0 < port < 65536 else None  # connect() raises OverflowError otherwise


def _accepted_by_this_user(conn, port: int) -> bool:
    """Whether the socket that took `conn` (connected to 127.0.0.1:`port`) belongs to this
    user: one question to the kernel's socket table (sock_diag netlink, ~20 µs), naming
    the server's side of the connection exactly. Only Linux has it; elsewhere any program
    on the port is trusted, as Claude's HTTP hook trusts it."""
    if not sys.platform.startswith("linux"):
        return True
    import _socket
    import struct

    loopback = bytes((127, 0, 0, 1)) + bytes(12)
    server_side = (struct.pack("!HH", port, conn.getsockname()[1]) + loopback + loopback
                   + struct.pack("=III", 0, *NO_COOKIE))
    request = struct.pack("=BBBxI", _socket.AF_INET, _socket.IPPROTO_TCP, 0, ALL_STATES)
    message = request + server_side
    header = struct.pack("=IHHII", 16 + len(message), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST,
                         1, 0)
    try:
        diag = _socket.socket(_socket.AF_NETLINK, _socket.SOCK_RAW, NETLINK_SOCK_DIAG)
    except OSError:
        return False  # cannot tell: the call is handled here instead
    try:
        diag.settimeout(CONNECT_TIMEOUT)
        diag.sendto(header + message, (0, 0))
        answer = diag.recv(8192)
    except OSError:
        return False
    finally:
        diag.close()
    if len(answer) < UID_AT + 4 or struct.unpack_from("=H", answer, 4)[0] != SOCK_DIAG_BY_FAMILY:
        return False  # an error answer: no such socket
    return struct.unpack_from("=I", answer, UID_AT)[0] == os.getuid()


def _header_safe(value: str) -> bool:
    return value.isprintable() and value.isascii()


def forward(kind: str, text: str, env: os._Environ | dict[str, str]) -> str | None:
    """The coordinator's answer to this call ("" for none), or NOT_SERVED when no
    coordinator took it (nothing was handled: the caller handles it itself)."""
    home, session = env.get("BULLPEN_HOME") or "", env.get("BULLPEN_SESSION") or ""
    token = env.get("BULLPEN_TOKEN") or ""
    if not (home and session and kind.isalnum()
            and _header_safe(session) and _header_safe(token)):
        return NOT_SERVED
    port = _port(home)
    if port is None:
        return NOT_SERVED
    # The C module: `socket` builds its enums on import, and resolving a name pulls in
    # the idna codec; together they would double this process's own cost.
    import _socket

    conn = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    try:
        conn.settimeout(CONNECT_TIMEOUT)
        conn.connect(("127.0.0.1", port))
    except OSError:
        conn.close()
        return NOT_SERVED  # no coordinator: nothing was sent
    if not _accepted_by_this_user(conn, port):
        conn.close()  # another user's program took the port: it gets neither token nor say
        return NOT_SERVED
    body = text.encode("utf-8", errors="surrogateescape")
    head = (f"POST /hook/{kind} HTTP/1.0\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            f"X-Bullpen-Session: {session}\r\nX-Bullpen-Token: {token}\r\n\r\n")
    chunks = []
    try:
        conn.settimeout(ANSWER_TIMEOUT)
        conn.sendall(head.encode() + body)
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    except OSError:
        # Sent, maybe handled: handling it again could hand a note twice. The server
        # commits only once its answer is out, so an answer not read took nothing.
        return ""
    finally:
        conn.close()
    status, _, answer = b"".join(chunks).partition(b"\r\n\r\n")
    code = status.split(b" ", 2)[1:2]
    if code in ([b"404"], [b"503"]):
        return NOT_SERVED  # a coordinator that does not know this kind, or is full: here
    return answer.decode("utf-8", errors="replace") if code == [b"200"] else ""
