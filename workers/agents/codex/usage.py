"""What a Codex session spent, from its own session files (never from its screen).

Codex writes each conversation to `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`: a
`session_meta` line first (its `id` and `cwd`), `turn_context` lines naming the `model`,
and after each model call an `event_msg` of type `token_count` whose
`info.total_token_usage` is the conversation's running total (`input_tokens` counting
the cached ones, `cached_input_tokens`, `output_tokens` counting reasoning). A session's
files are those whose cwd is its worktree, written since the session began. Each total's
growth since the one before is counted for the model in force, so a total that starts
again from zero (a resumed conversation in a new process) is counted on, not lost, and a
`token_count` repeated with the same total adds nothing.

Reading is incremental: each file's offset (complete lines only), last total and model
are kept in the reader's state with the running totals by model. Spend never goes down:
a file that got shorter (cut or rewritten) or vanished keeps what was counted from it,
reading goes on from its new end, and the cut is reported.
"""

from __future__ import annotations

import json
from pathlib import Path

from board.models import Session
from board.spend import Usage
from workers.agents.adapter import SpendReading
from workers.agents.codex.launch import codex_home, rollout_meta

SOURCE = "codex session files"
_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens")


def read_spend(session: Session, state: dict) -> SpendReading | None:
    if not session.worktree:
        return None
    worktree = Path(session.worktree).resolve()
    files: dict[str, dict] = {name: dict(value) for name, value in state.get("files", {}).items()}
    totals = {model: list(value) for model, value in state.get("totals", {}).items()}
    rewritten: list[str] = []
    for key, place in files.items():
        if not place.get("gone") and not Path(key).exists():  # its figure stays
            place["gone"] = True
            rewritten.append(f"session file {Path(key).name} was deleted")
    for rollout in (codex_home() / "sessions").glob("*/*/*/rollout-*.jsonl"):
        key = str(rollout)
        if key not in files:
            if _mtime(rollout) < session.created_at - 1 or not _ran_in(rollout, worktree):
                continue
            files[key] = {"offset": 0, "last": [0, 0, 0], "model": "unknown"}
        if files[key].pop("gone", False):  # written again: read anew, counted on
            files[key]["offset"] = 0
        if _size(rollout) < files[key]["offset"]:
            rewritten.append(f"session file {rollout.name} was cut")
            files[key]["offset"] = _complete_end(rollout)
        _read_on(rollout, files[key], totals)
    if not files:
        return None
    by_model = {model: Usage(*value) for model, value in totals.items()}
    return SpendReading(by_model, SOURCE, {"files": files, "totals": totals},
                        rewritten=tuple(rewritten))


def _ran_in(rollout: Path, worktree: Path) -> bool:
    cwd = (rollout_meta(rollout) or {}).get("cwd")
    return isinstance(cwd, str) and Path(cwd) == worktree


def _read_on(rollout: Path, place: dict, totals: dict[str, list]) -> None:
    try:
        with rollout.open("rb") as handle:
            handle.seek(place["offset"])
            data = handle.read()
    except OSError:
        return
    end = data.rfind(b"\n") + 1
    place["offset"] += end
    for raw in data[:end].splitlines():
        if b'"turn_context"' in raw or b'"token_count"' in raw:
            _line(raw, place, totals)


def _line(raw: bytes, place: dict, totals: dict[str, list]) -> None:
    try:
        entry = json.loads(raw)
    except ValueError:
        return
    payload = entry.get("payload") if isinstance(entry, dict) else None
    if not isinstance(payload, dict):
        return
    if entry.get("type") == "turn_context" and isinstance(payload.get("model"), str):
        place["model"] = payload["model"]
        return
    info = payload.get("info") if payload.get("type") == "token_count" else None
    total = info.get("total_token_usage") if isinstance(info, dict) else None
    if not isinstance(total, dict):
        return
    now = [value if isinstance(value := total.get(key), int) and value > 0 else 0
           for key in _KEYS]
    last = place["last"]
    grown = [a - b for a, b in zip(now, last, strict=True)]
    if any(value < 0 for value in grown):
        grown = now  # the total started again (a new process on the same conversation)
    place["last"] = now
    fresh_input, cached, output = grown
    row = totals.setdefault(place["model"], [0, 0, 0, 0])
    for index, value in enumerate((max(fresh_input - cached, 0), output, cached, 0)):
        row[index] += value
    if not any(row):
        totals.pop(place["model"])


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _complete_end(path: Path) -> int:
    """The end of the last complete line of `path` (where reading goes on after a cut)."""
    try:
        data = path.read_bytes()
    except OSError:
        return 0
    return data.rfind(b"\n") + 1
