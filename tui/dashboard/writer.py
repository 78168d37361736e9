"""The dashboard's writes: the same board functions the CLI calls, as the operator.

Calls come from thread workers, possibly several at once, so one lock serialises use of
the single write connection (board functions hold their own short transactions).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from board.db import connect
from board.home import DB_NAME
from board.identity import Caller
from board.models import OPERATOR

T = TypeVar("T")


class StoreWriter:
    """Runs board functions on the dashboard's connection as the operator."""

    def __init__(self, home: Path) -> None:
        self.caller = Caller(OPERATOR)
        self._conn = connect(home / DB_NAME)
        self._lock = threading.Lock()

    def call(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`function(conn, operator, *args, **kwargs)`, e.g. `call(tasks.move, 3, "done")`."""
        with self._lock:
            return function(self._conn, self.caller, *args, **kwargs)

    def read(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`function(conn, *args, **kwargs)` for a board query, e.g. `read(tasks.get, 3)`."""
        with self._lock:
            return function(self._conn, *args, **kwargs)

    def close(self) -> None:
        with self._lock:
            self._conn.close()
