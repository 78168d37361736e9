"""`bullpen doctor`'s landing check: the temporary worktrees of landings that were killed
before they finished (kill -9 during a check) are removed, and the removal said and
audited. The one thing doctor changes: a leftover is bullpen's own scratch, its owner
gone, and keeping it only keeps a stale worktree registered in git."""

from __future__ import annotations

from pathlib import Path

from board.connection import Connection
from board.errors import BullpenError
from board.identity import Caller
from board.models import OPERATOR
from workers.room.findings import Finding
from workers.room.land import remove_leftovers


def land_leftovers(home: Path, conn: Connection) -> list[Finding]:
    """One finding per leftover removed (or one saying why removing failed); nothing
    when no landing left anything."""
    try:
        removed = remove_leftovers(conn, home.parent, Caller(OPERATOR))
    except BullpenError as error:
        return [Finding("land", False, f"a killed landing's worktree could not be removed:"
                        f" {error}", "git worktree prune; git worktree list")]
    return [Finding("land", True, line) for line in removed]
