"""`bullpen doctor`'s look at notes left `claimed`: typing one takes seconds, so a claim
older than a minute is one nothing settled, and every later note to its session waits
behind it (board/deliveries.py)."""

from __future__ import annotations

import time
from pathlib import Path

from board import deliveries
from board.connection import Connection
from workers.coordinator.lock import running_pid
from workers.room.findings import Finding

OLD_CLAIM = 60.0  # seconds


def old_claims(home: Path, conn: Connection, names: set[str]) -> list[Finding]:
    """Claims of `names`' notes older than a minute, not ok, with the fix; none: nothing."""
    now = time.time()
    old = [claim for claim in deliveries.claimed_before(conn, now - OLD_CLAIM)
           if claim[1] in names]
    if not old:
        return []
    note, recipient, claimed_at = old[0]
    pid = running_pid(home)
    restart = "bullpen up" if pid is None else f"kill {pid}; bullpen up"
    return [Finding("delivery", False, f"{len(old)} note(s) claimed for typing and never"
                    f" settled, oldest #{note} to {recipient} ({int(now - claimed_at)} s ago);"
                    " later notes to that session wait behind it",
                    f"{restart} (each is looked for in its pane: confirmed if it arrived,"
                    " queued again if not)")]
