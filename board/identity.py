"""Who is calling: a session proven by its token, or the operator (the human)."""

from __future__ import annotations

import os
from _operator import _compare_digest as compare_digest  # what hmac.compare_digest is
from collections.abc import Mapping

from board.connection import Connection
from board.errors import NotFound, Refused
from board.models import OPERATOR
from board.records import record

# The C modules hashlib and hmac wrap: hashlib loads OpenSSL first, 5-7 ms of a
# `bullpen note send` process here, for one SHA-256 of a short token.
try:
    from _sha256 import sha256  # Python 3.11
except ImportError:  # pragma: no cover - 3.12+ renamed it
    try:
        from _sha2 import sha256
    except ImportError:
        from hashlib import sha256


@record(frozen=True)
class Caller:
    name: str

    @property
    def is_operator(self) -> bool:
        return self.name == OPERATOR


def new_token() -> str:
    import secrets  # here: an agent's hook process only checks tokens, and secrets costs 3 ms

    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    return sha256(token.encode()).hexdigest()


def hook_key(token: str) -> str:
    """The session's key for Claude Code's per-tool HTTP hook, derived from its token.

    Claude sends it to whatever listens on the room's hook port; were that ever another
    program, the key records reads for the session and nothing more, and the token
    cannot be recovered from it. The store checks it against the token's hash."""
    return _key_of(hash_token(token))


def _key_of(token_hash: str) -> str:
    return sha256(f"bullpen hook key {token_hash}".encode()).hexdigest()


def resolve_hook_caller(conn: Connection, name: str, key: str) -> Caller:
    """Session `name`, proven by its hook key (see hook_key)."""
    row = conn.execute("SELECT token_hash FROM sessions WHERE name = ?", (name,)).fetchone()
    if row is None:
        raise NotFound(f"the hook names unknown session {name!r}")
    if not key or not compare_digest(_key_of(row["token_hash"]), key):
        raise Refused(f"the hook key does not match session {name!r}; refused")
    return Caller(name)


def resolve_caller(conn: Connection, env: Mapping[str, str] | None = None) -> Caller:
    """The caller named by BULLPEN_SESSION with a matching BULLPEN_TOKEN, else the operator."""
    env = os.environ if env is None else env
    name = env.get("BULLPEN_SESSION")
    if not name:
        return Caller(OPERATOR)
    row = conn.execute("SELECT token_hash FROM sessions WHERE name = ?", (name,)).fetchone()
    if row is None:
        raise NotFound(f"BULLPEN_SESSION names unknown session {name!r}")
    token = env.get("BULLPEN_TOKEN", "")
    if not token:
        raise Refused(f"BULLPEN_TOKEN is missing for session {name!r}")
    if not compare_digest(row["token_hash"], hash_token(token)):
        raise Refused(f"BULLPEN_TOKEN does not match session {name!r}; refused")
    return Caller(name)
