"""Which store a room uses: its SQLite file (the default) or a PostgreSQL database.

A room across machines keeps its board in PostgreSQL. The database URL holds a secret,
so it is never read from `bullpen.yaml` (tracked); it comes from `BULLPEN_DATABASE_URL`
or from `store:` in the room's local, untracked config `.bullpen/local.yaml`. A URL
without a password lets libpq take it from `~/.pgpass` (or `PGPASSFILE`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from board.errors import BadInput
from board.records import record

ENV_URL = "BULLPEN_DATABASE_URL"
LOCAL_CONFIG = "local.yaml"  # inside the room's home (.bullpen/), never tracked
URL_SCHEMES = ("postgresql", "postgres")


class StoreKind(StrEnum):
    SQLITE = "sqlite"
    POSTGRESQL = "postgresql"


@record(frozen=True)
class StoreChoice:
    kind: StoreKind
    url: str | None = None  # PostgreSQL only; may hold a password: never print it

    @property
    def shown(self) -> str:
        """The URL with any password masked, safe for messages and logs."""
        return redact(self.url) if self.url else "sqlite"


def is_url(text: str) -> bool:
    return urlsplit(text).scheme in URL_SCHEMES


def redact(url: str) -> str:
    """`url` without its password (`postgresql://me:***@host/db`)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def choose(home: Path, env: Mapping[str, str] | None = None) -> StoreChoice:
    """The store of the room at `home`: the environment, then local config, then SQLite."""
    env = os.environ if env is None else env
    explicit = env.get(ENV_URL, "").strip()
    if explicit:
        return _postgres(explicit, ENV_URL)
    configured = read_local(home).get("store")
    if configured is None or configured == StoreKind.SQLITE:
        return StoreChoice(StoreKind.SQLITE)
    if not isinstance(configured, str):
        raise BadInput(f"{home / LOCAL_CONFIG}: store must be 'sqlite' or a postgresql:// URL")
    return _postgres(configured, str(home / LOCAL_CONFIG))


def _postgres(url: str, source: str) -> StoreChoice:
    if not is_url(url):
        raise BadInput(f"{source}: {redact(url)!r} is not a postgresql:// URL")
    return StoreChoice(StoreKind.POSTGRESQL, url)


def read_local(home: Path) -> dict:
    """The room's local config (`.bullpen/local.yaml`), empty when there is none."""
    path = home / LOCAL_CONFIG
    if not path.exists():  # the common case: skip importing yaml at all
        return {}
    import yaml

    try:
        data = yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError) as error:
        raise BadInput(f"{path}: cannot read it ({error}); fix or remove it") from None
    if not isinstance(data, dict):
        raise BadInput(f"{path}: expected keys such as 'store:', found {type(data).__name__}")
    return data


def write_local(home: Path, **values: object) -> None:
    """Set keys in the local config, readable by this user only (it may name a database)."""
    import yaml

    data = {**read_local(home), **values}
    path = home / LOCAL_CONFIG
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write("# This machine's own settings for the room; never commit this file.\n")
        yaml.safe_dump(data, handle, sort_keys=True)
