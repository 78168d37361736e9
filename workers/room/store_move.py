"""Moving a room between stores (`bullpen room migrate`): copy, then switch the room over.

Only a room at rest moves: writes made during the copy would be left behind. Ids are kept
(board.transfer), so notes quoted by id, tasks and the coordinator's cursor stay true.
The store left behind is kept (the SQLite file renamed), never deleted.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from urllib.parse import urlsplit

from board import machines, pairing, postgres, store, transfer
from board.db import connect, connect_sqlite
from board.errors import BadInput, Refused
from board.home import DB_NAME
from board.room import check_store_present, prepare_home
from workers.coordinator.lock import is_running

LEFT_BEHIND = ".moved-to-postgresql"  # the SQLite file after the room moved away


def _at_rest(home: Path, conn) -> None:
    if is_running(home):
        raise Refused("the room's coordinator is running; bullpen down first, then migrate")
    # A coordinator that was killed rather than stopped leaves a recent beat: wait until
    # it ages out (a stopped one clears its own beat at once).
    deadline = time.monotonic() + machines.UNREACHABLE_AFTER + 1
    while (awake := [m.name for m in machines.all_machines(conn) if m.reachable]) \
            and time.monotonic() < deadline:
        time.sleep(0.2)  # waiting for beats to age out, with a deadline
    if awake:
        raise Refused(f"machine(s) {', '.join(awake)} still run a coordinator on this room;"
                      " bullpen down there first")


def to_postgres(home: Path, url: str) -> dict[str, int]:
    """Copy the SQLite room into the empty PostgreSQL database at `url` and use it."""
    if store.choose(home).kind != store.StoreKind.SQLITE:
        raise BadInput("this room is not on SQLite; migrate --to sqlite first, or join the"
                       " PostgreSQL room with bullpen room join")
    prepare_home(home)
    check_store_present(home)
    source = connect_sqlite(home / DB_NAME)
    try:
        _at_rest(home, source)
        target = postgres.connect(url)
        try:
            copied = transfer.copy_room(source, target)
        finally:
            target.close()
    finally:
        source.close()  # the last connection: SQLite folds its WAL into the file
    store.write_local(home, store=_remember(url))
    moved = home / DB_NAME
    moved.rename(moved.with_name(f"{DB_NAME}{LEFT_BEHIND}-{int(time.time())}"))
    return copied


def _remember(url: str) -> str:
    """The URL to keep in the local config: its password goes to the pgpass file."""
    password = urlsplit(url).password
    if password is None:
        return url
    from psycopg.conninfo import conninfo_to_dict

    bare = pairing.url_as(url, str(conninfo_to_dict(url)["user"]))
    pairing.remember_password(bare, password)
    return bare


def to_sqlite(home: Path) -> dict[str, int]:
    """Copy the PostgreSQL room into a new SQLite file beside it and use that."""
    choice = store.choose(home)
    if choice.kind != store.StoreKind.POSTGRESQL or choice.url is None:
        raise BadInput("this room is already on SQLite")
    if os.environ.get(store.ENV_URL):
        raise BadInput(f"unset {store.ENV_URL} first: it would keep the room on PostgreSQL")
    if (home / DB_NAME).exists():
        raise Refused(f"{home / DB_NAME} already exists; move it aside first")
    source = connect(choice.url)
    try:
        _at_rest(home, source)
        target = connect_sqlite(home / DB_NAME)
        try:
            copied = transfer.copy_room(source, target)
        except BaseException:
            target.close()
            (home / DB_NAME).unlink()  # the file this call made, empty: nothing is lost
            raise
        target.close()
    finally:
        source.close()
    store.write_local(home, store=store.StoreKind.SQLITE.value)
    return copied
