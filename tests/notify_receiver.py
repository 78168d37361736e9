"""A local notification receiver for tests: Apprise's `json://127.0.0.1:PORT` posts
to it over real HTTP; each post is kept with the wall-clock time it arrived. Also a
receiver that hangs (accepts, never answers) and a port that refuses."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Receiver:
    port: int
    posts: list[dict] = field(default_factory=list)  # {"title", "message", "at"}

    @property
    def url(self) -> str:
        return f"json://127.0.0.1:{self.port}"

    def messages(self) -> list[str]:
        return [post["message"] for post in self.posts]

    def lines(self) -> list[str]:
        """Every line told, across all posts (a batch tells one thing per line)."""
        return [line for message in self.messages() for line in message.splitlines()]


@contextmanager
def receiver() -> Iterator[Receiver]:
    """An HTTP server on 127.0.0.1 recording each JSON post it is sent."""
    got = Receiver(0)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            post = json.loads(body)
            post["at"] = time.time()
            got.posts.append(post)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    got.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield got
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def hanging_port() -> Iterator[int]:
    """A port that accepts connections and never answers (a receiver that hangs)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def hold() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(2)
        for conn in held:
            conn.close()
        listener.close()


def refusing_port() -> int:
    """A port nothing listens on (connections are refused)."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port
