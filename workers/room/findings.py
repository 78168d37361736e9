"""One of `bullpen doctor`'s findings, shared by its SQLite and PostgreSQL checks."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Finding:
    """One check: `ok`, what was found, and (when not ok) the command that fixes it."""

    area: str
    ok: bool
    what: str
    fix: str | None = None

    def to_json(self) -> dict:
        return asdict(self)
