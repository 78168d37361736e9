"""The room: where the store lives, opened together with who is calling."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from board.connection import Connection
from board.db import StoreFault, connect, is_postgres
from board.errors import BadInput
from board.home import DB_NAME, room_home
from board.identity import Caller, resolve_caller
from board.records import record
from board.store import StoreKind, choose
from board.vocabulary import IdentityVariable

EXCLUDE_LINE = "/.bullpen/"

TYPE_CHECKING = False  # not typing's: the hook process imports this module
if TYPE_CHECKING:
    from typing import NoReturn

# SQLite connections left open for the process's exit (leave_stores_open), else None.
# When the connection closing is the store's last, SQLite checkpoints its write-ahead log
# into the database (two fsyncs) and deletes it, and the next process to write makes a new
# one (a third fsync): that was half of a hook handled in its own process when no
# coordinator or dashboard held the store (bench/hook_bench.py). Left to the OS, the log
# stays for the next process to read back (SQLite's recovery after any process that ends
# without closing: about 1 ms for a full log), its commits as durable as they are under
# `synchronous = NORMAL` anyway; SQLite still checkpoints it as it fills.
_left_open: list[Connection] | None = None


@record
class Room:
    home: Path
    conn: Connection
    caller: Caller

    @property
    def db_path(self) -> Path:
        return self.home / DB_NAME

    def close(self) -> None:
        if _left_open is not None and not is_postgres(self.conn):
            _left_open.append(self.conn)  # end_process lets the OS close it
            return
        self.conn.close()

    def __enter__(self) -> Room:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_room(env: Mapping[str, str] | None = None, start: Path | None = None,
              create: bool = True) -> Room:
    """Open the room for the repository at `start` (or BULLPEN_HOME) as the calling identity."""
    env = os.environ if env is None else env
    home = room_home(env, start)
    if not home.exists():
        if not create:
            raise BadInput(f"no bullpen room at {home}; run bullpen init")
        prepare_home(home)
    check_store_present(home)
    conn = connect(home / DB_NAME)
    try:
        caller = resolve_caller(conn, env)
    except BaseException:
        conn.close()
        raise
    return Room(home, conn, caller)


def open_operator_room(home: Path) -> Room:
    """Open the room at `home` as the operator (no session identity in its environment),
    whoever runs this: the room's own verbs, listings and the web page act for the human."""
    return open_room(env={IdentityVariable.HOME: str(home)})


def leave_stores_open() -> None:
    """From now on Room.close() leaves a SQLite connection open: the caller ends this
    process with end_process as soon as its one command is done (the CLI's hot paths)."""
    global _left_open
    if _left_open is None:
        _left_open = []


def end_process(status: int) -> NoReturn:
    """End this process now, without Python's shutdown closing the stores left open."""
    for stream in (sys.stdout, sys.stderr):
        # A reader gone or a stream closed: what it would have printed is lost either way.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)


# What a room leaves in its directory once it has run; with these but no database, the
# database was lost, and a new empty one would hide that (and orphan the sessions).
ROOM_TRACES = ("worktrees", "coordinator.lock", "logs")


def check_store_present(home: Path) -> None:
    """Refuse to start a new, empty store in a room that already ran (StoreFault)."""
    if (home / DB_NAME).exists() or choose(home).kind != StoreKind.SQLITE:
        return
    traces = [name for name in ROOM_TRACES if (home / name).exists()]
    if traces:
        raise StoreFault(
            f"the room's database {home / DB_NAME} is missing, but the room's"
            f" {' and '.join(traces)} are there; restore bullpen.db from a backup, or move"
            f" {home} aside to start an empty room (bullpen doctor shows what is left)")


def prepare_home(home: Path) -> None:
    """Create `.bullpen/` and keep it out of git (listed in the repository's info/exclude)."""
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # e.g. BULLPEN_HOME under a file or an unwritable directory
        raise BadInput(f"cannot create the room at {home} ({error.strerror});"
                       " check BULLPEN_HOME") from None
    git_dir = home.parent / ".git"
    if git_dir.is_dir():
        exclude = git_dir / "info" / "exclude"
        exclude.parent.mkdir(parents=True, exist_ok=True)
        existing = exclude.read_text() if exclude.exists() else ""
        if EXCLUDE_LINE not in existing.splitlines():
            prefix = "" if not existing or existing.endswith("\n") else "\n"
            with exclude.open("a") as handle:
                handle.write(f"{prefix}{EXCLUDE_LINE}\n")
