"""Who is calling: a session proven by its token, or the operator (the human)."""

from __future__ import annotations

import hashlib
import hmac
import os
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass

from board.errors import NotFound, Refused
from board.models import OPERATOR


@dataclass(frozen=True)
class Caller:
    name: str

    @property
    def is_operator(self) -> bool:
        return self.name == OPERATOR


def new_token() -> str:
    import secrets  # here: an agent's hook process only checks tokens, and secrets costs 3 ms

    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def resolve_caller(conn: sqlite3.Connection, env: Mapping[str, str] | None = None) -> Caller:
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
    if not hmac.compare_digest(row["token_hash"], hash_token(token)):
        raise Refused(f"BULLPEN_TOKEN does not match session {name!r}; refused")
    return Caller(name)
