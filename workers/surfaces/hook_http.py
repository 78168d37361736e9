"""The little HTTP the hook port speaks: one POST per connection, read from a buffer.

Only what `bullpen hook` and Claude Code's HTTP hooks send is understood: a request
line `POST /hook/KIND HTTP/1.x`, headers, and a body of exactly `Content-Length` bytes.
Anything else is an `HttpError` with the status to answer, so the server never waits
for more than the request said it would send.
"""

from __future__ import annotations

from http import HTTPStatus

from board.records import record

MAX_HEAD = 64 * 1024  # request line and headers; a session header is a short name
MAX_BODY = 8 * 1024 * 1024  # a hook payload holds a tool's input and response
END_OF_HEAD = b"\r\n\r\n"


class HttpError(Exception):
    """A request the server answers with `status` and closes."""

    def __init__(self, status: int, why: str) -> None:
        super().__init__(why)
        self.status = status


@record(frozen=True)
class Request:
    """One complete hook request: its path, its headers (names lower-cased), its body."""

    path: str
    headers: dict[str, str]
    body: bytes

    def header(self, name: str) -> str:
        return self.headers.get(name.lower(), "")


def parse(buffer: bytes | bytearray) -> Request | None:
    """The request held in `buffer`, None while it is still incomplete (HttpError when
    it can never be one)."""
    end = buffer.find(END_OF_HEAD, 0, MAX_HEAD + len(END_OF_HEAD))
    if end < 0:
        if len(buffer) > MAX_HEAD:
            raise HttpError(431, f"a request head over {MAX_HEAD} bytes")
        return None
    lines = bytes(buffer[:end]).decode("latin-1").split("\r\n")
    method, _, rest = lines[0].partition(" ")
    path = rest.rpartition(" ")[0] or rest
    if method != "POST":
        raise HttpError(405, f"method {method[:20]!r}")
    headers = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if colon:
            headers[name.strip().lower()] = value.strip()
    length = headers.get("content-length", "")
    if not length.isdigit() or int(length) == 0:
        raise HttpError(400, "no Content-Length")
    if int(length) > MAX_BODY:
        raise HttpError(413, f"a body of {length} bytes")
    start = end + len(END_OF_HEAD)
    if len(buffer) - start < int(length):
        return None
    return Request(path, headers, bytes(buffer[start:start + int(length)]))


def response(status: int, text: str = "") -> bytes:
    """The whole answer, written at once: status line, headers and body."""
    data = text.encode()
    phrase = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else ""
    head = (f"HTTP/1.0 {status} {phrase}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n")
    return head.encode() + data
