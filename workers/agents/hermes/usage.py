"""What a Hermes session spent, from Hermes' own session store (never from its screen).

Hermes 0.19.0 keeps every conversation in its profile's `state.db` (`hermes_state.py`):
the `sessions` table (one row per conversation, with the `cwd` it ran in) and
`session_model_usage`, one row per (conversation, model, provider, task) holding the
tokens of the main loop (`task` '') and of its side calls (title, compression …,
recorded by `record_auxiliary_usage`). Hermes splits the tokens as bullpen does:
`input_tokens` without the cached ones, `cache_read_tokens`, `cache_write_tokens`,
`output_tokens` (reasoning inside). A bullpen session's conversations are those whose
cwd is its worktree (its profile is its own: one process per profile).

The store is read only (board/foreign_stores.py), and only when its files changed
since the last read.
"""

from __future__ import annotations

from pathlib import Path

from board import foreign_stores
from board.models import Session
from board.spend import Usage
from workers.agents.adapter import SpendReading

SOURCE = "hermes state.db"
STORE = "state.db"


def read_spend(session: Session, profile_dir: Path, state: dict) -> SpendReading | None:
    store = profile_dir / STORE
    stamp = [_stamp(store), _stamp(Path(f"{store}-wal"))]
    if stamp[0] is None or not session.worktree:
        return None
    if state.get("stamp") == stamp and "totals" in state:
        totals = state["totals"]
    else:
        totals = foreign_stores.hermes_usage(store, str(session.worktree),
                                             session.created_at - 1)
        if totals is None:
            return None
    by_model = {model: Usage(*values) for model, values in totals.items()}
    return SpendReading(by_model, SOURCE, {"stamp": stamp, "totals": totals})


def _stamp(path: Path) -> list[float] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return [info.st_mtime_ns, info.st_size]
