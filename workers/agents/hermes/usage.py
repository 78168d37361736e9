"""What a Hermes session spent, from Hermes' own session store (never from its screen).

Hermes keeps every conversation in its profile's `state.db` (`hermes_state.py`), one
`sessions` row each with the `cwd` it ran in; its tokens are in `session_model_usage`
(0.19.0: per conversation, model, provider and task, the side calls' included) or in the
`sessions` row itself (0.17.0, 0.18.2). board/foreign_stores.py probes which shape the
store has. Hermes splits the tokens as bullpen does: `input_tokens` without the cached
ones, `cache_read_tokens`, `cache_write_tokens`, `output_tokens` (reasoning inside). A
bullpen session's conversations are those whose cwd is its worktree (its profile is its
own: one process per profile).

Spend never goes down: each conversation's tokens by model are the highest ever read (a
row rewritten smaller or deleted keeps its figure, and the change is reported). A store
of a shape bullpen does not know is `unreadable`, naming the version that wrote it.

The store is read only, and only when its files changed since the last read.
"""

from __future__ import annotations

from pathlib import Path

from board import foreign_stores
from board.models import Session
from board.spend import Usage
from workers.agents.adapter import SpendReading

SOURCE = "hermes state.db"
STORE = "state.db"
GAP = "\t"  # between conversation id and model in a record's key (foreign_stores)


def read_spend(session: Session, profile_dir: Path, state: dict) -> SpendReading | None:
    store = profile_dir / STORE
    stamp = [_stamp(store), _stamp(Path(f"{store}-wal"))]
    kept = {key: list(value) for key, value in state.get("records", {}).items()}
    if stamp[0] is None and kept and not state.get("deleted"):  # its figure stays
        return SpendReading(_by_model(kept), SOURCE, {**state, "deleted": True},
                            rewritten=(f"{STORE} was deleted",))
    if stamp[0] is None or not session.worktree:
        return None
    below = {key: list(value) for key, value in state.get("below", {}).items()}
    rewritten: list[str] = []
    if state.get("stamp") != stamp or "records" not in state:
        try:
            found = foreign_stores.hermes_usage(store, str(session.worktree),
                                                session.created_at - 1)
        except foreign_stores.UnknownShape as error:
            version = f"hermes {session.agent_version}" if session.agent_version \
                else "this hermes"
            return SpendReading({}, SOURCE, {}, unreadable=f"{version}'s {STORE}: {error}")
        if found is None:
            return None
        for key in kept.keys() - found.keys():
            found[key] = [0, 0, 0, 0]  # deleted: read as nothing, its figure stays
        for key, values in found.items():
            before = kept.get(key, [0, 0, 0, 0])
            if sum(values) < sum(before) and below.get(key) != values:
                rewritten.append(f"conversation {key.partition(GAP)[0]} shrank"
                                 if any(values) else
                                 f"conversation {key.partition(GAP)[0]} was deleted")
            if sum(values) < sum(before):
                below[key] = values  # told once for the same smaller figure
            else:
                below.pop(key, None)
            kept[key] = [max(now, was) for now, was in zip(values, before, strict=True)]
    return SpendReading(_by_model(kept), SOURCE,
                        {"stamp": stamp, "records": kept, "below": below},
                        rewritten=tuple(rewritten))


def _by_model(kept: dict[str, list[int]]) -> dict[str, Usage]:
    """The conversations' highest figures, summed by model."""
    totals: dict[str, list[int]] = {}
    for key, values in kept.items():
        row = totals.setdefault(key.partition(GAP)[2], [0, 0, 0, 0])
        for index, value in enumerate(values):
            row[index] += value
    return {model: Usage(*values) for model, values in totals.items()}


def _stamp(path: Path) -> list[float] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return [info.st_mtime_ns, info.st_size]
