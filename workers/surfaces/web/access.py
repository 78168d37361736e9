"""Who may use the web page: one random token, kept only as its hash, traded for a cookie.

The token is made by `bullpen serve` (or `--new-token`), printed once in the login URL,
and its SHA-256 is kept in the room's `.bullpen/web-token` (mode 0600, never in
bullpen.yaml). A browser that shows it gets a random cookie (HttpOnly, SameSite=Strict)
and a CSRF token of its own that every state-changing request carries. Comparisons are
in constant time. While the server runs, `.bullpen/web-url` holds its address without
the token (`served_url`), for whoever wants to point the human at the page.
"""

from __future__ import annotations

import os
import secrets
import time
from collections import deque
from contextlib import suppress
from pathlib import Path

from board.identity import compare_digest, hash_token, new_token

TOKEN_FILE = "web-token"
URL_FILE = "web-url"
COOKIE = "bullpen_web"
CSRF_HEADER = "x-csrf-token"


def _write_private(path: Path, text: str) -> None:
    """Write `text` to `path` readable by its owner only, from its first byte."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.replace(temporary, path)


def new_login_token(home: Path) -> str:
    """A fresh token; only its hash is stored (the previous token stops working)."""
    token = new_token()
    _write_private(home / TOKEN_FILE, hash_token(token) + "\n")
    return token


def has_token(home: Path) -> bool:
    return (home / TOKEN_FILE).is_file()


def token_matches(home: Path, token: str) -> bool:
    """Whether `token` is the room's current web token (constant time)."""
    try:
        stored = (home / TOKEN_FILE).read_text().strip()
    except OSError:
        return False
    return bool(token) and compare_digest(stored, hash_token(token))


def write_url(home: Path, url: str) -> None:
    _write_private(home / URL_FILE, url + "\n")


def clear_url(home: Path) -> None:
    with suppress(FileNotFoundError):
        (home / URL_FILE).unlink()


def served_url(home: Path) -> str | None:
    """The page's address (without the token) while `bullpen serve` runs, else None."""
    try:
        return (home / URL_FILE).read_text().strip() or None
    except OSError:
        return None


class Logins:
    """The browsers let in since the server started: cookie -> CSRF token (in memory, so
    a restart or a new token lets nobody in until they log in again)."""

    def __init__(self) -> None:
        self._csrf: dict[str, str] = {}

    def open(self) -> tuple[str, str]:
        """A new (cookie, CSRF token) pair."""
        cookie, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        self._csrf[cookie] = csrf
        return cookie, csrf

    def csrf_of(self, cookie: str | None) -> str | None:
        """The CSRF token of a cookie this server gave, else None."""
        if not cookie:
            return None
        for known, csrf in self._csrf.items():  # every entry compared: constant time
            if compare_digest(known, cookie):
                return csrf
        return None

    def clear(self) -> None:
        self._csrf.clear()


class RateLimit:
    """At most `count` actions in any `seconds`; the rest are refused (HTTP 429)."""

    def __init__(self, count: int, seconds: float) -> None:
        self.count, self.seconds = count, seconds
        self._times: deque[float] = deque()

    def allow(self) -> bool:
        now = time.monotonic()
        while self._times and now - self._times[0] > self.seconds:
            self._times.popleft()
        if len(self._times) >= self.count:
            return False
        self._times.append(now)
        return True
