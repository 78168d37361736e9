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

One thread watches every connection (selectors): a request must arrive whole within
`READ_DEADLINE` seconds of its connection, at most `MAX_CONNECTIONS` are open at once
(past that a connection is refused with 503 at once), and an idle connection costs a
descriptor and a few bytes, never a thread. Complete requests are answered one at a
time by a second thread, the only one that touches the store. Refusals are counted and
sampled into the log (workers.logs), never logged one by one.

The port is the one recorded in the room's home (`agent_files.HOOK_PORT`), so agents
launched earlier reach a restarted coordinator; a new one is recorded when it is taken.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import selectors
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from board.connection import Connection
from board.db import connect
from board.home import DB_NAME
from board.records import field, record
from board.vocabulary import IdentityVariable
from workers import logs
from workers.agents import agent_files
from workers.surfaces import hook_answer, hook_http, hooks

log = logging.getLogger(__name__)

MAX_BODY = hook_http.MAX_BODY
READ_DEADLINE = 5.0  # seconds from connect to a whole request: hooks send theirs at once
WRITE_TIMEOUT = 5.0  # seconds for the answer to go out
MAX_CONNECTIONS = 128  # open at once, far under any descriptor limit; refused past it
TICK = 0.1  # seconds: how soon an expired deadline is noticed (while any can expire)


@record
class _Connection:
    sock: socket.socket
    deadline: float
    buffer: bytearray = field(default_factory=bytearray)


class _Server:
    """The listening socket, the connections being read, and the answering thread."""

    def __init__(self, home: Path, port: int) -> None:
        self.home = home
        # for log lines about no session
        self.here: dict[str, str] = {IdentityVariable.HOME: str(home)}
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            # the recorded port again, right after a restart
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", port))
            listener.listen(128)
            listener.setblocking(False)
        except OSError:
            listener.close()
            raise
        self.listener = listener
        self.server_address = listener.getsockname()
        self.selector = selectors.DefaultSelector()
        self.selector.register(listener, selectors.EVENT_READ, None)
        # Nothing to expire, nothing asked: the threads sleep until `stop` wakes them.
        self._wake, self._waker = socket.socketpair()
        self._wake.setblocking(False)
        self._waker.setblocking(False)
        self.selector.register(self._wake, selectors.EVENT_READ, None)
        self.reading: dict[socket.socket, _Connection] = {}
        self.answering = 0  # handed to the answering thread, not yet closed
        self.count_lock = threading.Lock()
        # None: `stop` waking the answering thread
        self.requests: queue.Queue[tuple[socket.socket, hook_http.Request] | None] = \
            queue.Queue()
        self.stopping = threading.Event()
        self.accept_paused_until = 0.0
        self.refusals = logs.Sampler()
        self.lock = threading.Lock()  # one store connection, one call at a time
        self.conn: Connection | None = None

    def store(self) -> Connection:
        if self.conn is None:
            self.conn = connect(self.home / DB_NAME)
        return self.conn

    def open_connections(self) -> int:
        with self.count_lock:
            return len(self.reading) + self.answering

    # The I/O thread: accept, read, expire.

    def serve_forever(self) -> None:
        while not self.stopping.is_set():
            expiring = bool(self.reading or self.accept_paused_until)
            for key, _ in self.selector.select(TICK if expiring else None):
                if key.fileobj is self._wake:
                    continue
                if key.data is None:
                    self._accept()
                else:
                    self._read(key.data)
            self._expire()

    def _accept(self) -> None:
        for _ in range(64):  # a burst at a time, so reading is never starved
            try:
                sock, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:  # out of descriptors: stop accepting for a tick
                self.refused(self.here, "-", f"cannot accept a connection: {error}")
                self.selector.unregister(self.listener)
                self.accept_paused_until = time.monotonic() + TICK
                return
            if self.open_connections() >= MAX_CONNECTIONS:
                self.refused(self.here, "-", f"over {MAX_CONNECTIONS} open connections")
                _send_and_close(sock, 503)
                continue
            sock.setblocking(False)
            connection = _Connection(sock, time.monotonic() + READ_DEADLINE)
            with self.count_lock:
                self.reading[sock] = connection
            self.selector.register(sock, selectors.EVENT_READ, connection)

    def _read(self, connection: _Connection) -> None:
        try:
            data = connection.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._forget(connection)
            connection.sock.close()
            return
        connection.buffer += data
        try:
            request = hook_http.parse(connection.buffer)
        except hook_http.HttpError as error:
            self.refused(self.here, "-", f"a bad request ({error})")
            self._forget(connection)
            _send_and_close(connection.sock, error.status)
            return
        if request is not None:
            self._forget(connection, answering=True)
            self.requests.put((connection.sock, request))

    def _expire(self) -> None:
        now = time.monotonic()
        if self.accept_paused_until and now >= self.accept_paused_until:
            self.accept_paused_until = 0.0
            self.selector.register(self.listener, selectors.EVENT_READ, None)
        late = [c for c in self.reading.values() if c.deadline <= now]
        for connection in late:
            self.refused(self.here, "-", f"no whole request within {READ_DEADLINE:g} s")
            self._forget(connection)
            _send_and_close(connection.sock, 408)

    def _forget(self, connection: _Connection, answering: bool = False) -> None:
        self.selector.unregister(connection.sock)
        with self.count_lock:
            del self.reading[connection.sock]
            self.answering += answering

    # The answering thread: one request at a time, against the store.

    def answer_forever(self) -> None:
        while not self.stopping.is_set():
            item = self.requests.get()
            if item is None:
                continue
            sock, request = item
            try:
                sock.settimeout(WRITE_TIMEOUT)
                with self.lock:
                    hook_answer.answer(self, sock, request)
            finally:
                sock.close()
                with self.count_lock:
                    self.answering -= 1

    def refused(self, identity: dict[str, str], kind: str, message: str) -> None:
        """A refusal into hooks.log, sampled: the first few in each window, then a count."""
        admitted, dropped = self.refusals.admit()
        if admitted:
            more = f" ({dropped} more refused requests were not logged)" if dropped else ""
            hooks.log_line(identity, kind, message + more)

    def drop_store(self) -> None:
        """After an unexpected failure the connection may be broken: open a new one."""
        conn, self.conn = self.conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def stop(self) -> None:
        """Both threads end: each notices within a tick, or now if it sleeps."""
        self.stopping.set()
        with contextlib.suppress(OSError):
            self._waker.send(b"x")
        self.requests.put(None)

    def close(self) -> None:
        self.stopping.set()
        dropped = self.refusals.dropped()
        if dropped:
            hooks.log_line(self.here, "-", f"{dropped} more refused requests were not logged")
        for connection in list(self.reading.values()):
            connection.sock.close()
        self.selector.close()
        self.listener.close()
        self._wake.close()
        self._waker.close()
        while True:
            try:
                item = self.requests.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item[0].close()


def _send_and_close(sock: socket.socket, status: int) -> None:
    """Answer `status` without waiting for anything. What the caller already sent is read
    first: closing on unread bytes resets the connection, and the caller would lose
    the answer that tells it to handle the call itself."""
    with contextlib.suppress(OSError):
        sock.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            sock.recv(hook_http.MAX_HEAD)
        sock.send(hook_http.response(status))
        sock.shutdown(socket.SHUT_WR)
    sock.close()


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
    threads = [threading.Thread(target=server.serve_forever, name="bullpen-hooks",
                                daemon=True),
               threading.Thread(target=server.answer_forever, name="bullpen-hook-answers",
                                daemon=True)]
    for thread in threads:
        thread.start()
    log.info("serving agents' hooks on 127.0.0.1:%d", server.server_address[1])
    try:
        yield server.server_address[1]
    finally:
        server.stop()
        for thread in threads:
            thread.join()  # both notice within a tick; a call being answered finishes
        server.close()
        with server.lock:
            if server.conn is not None:
                with contextlib.suppress(Exception):
                    server.conn.close()
            server.conn = None
