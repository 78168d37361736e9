"""What a Claude Code session spent, from its own transcripts (never from its screen).

Claude keeps each conversation in `$CLAUDE_CONFIG_DIR/projects/<cwd>/<id>.jsonl`; every
assistant line carries `message.usage` (`input_tokens`, `output_tokens`,
`cache_read_input_tokens`, `cache_creation_input_tokens`) and `message.model`. One
assistant message can span several lines (one per content block: thinking, text, tool
use), each with the same `message.id` and usage: each message is counted once, with
the usage of its last line. A session's conversations all live in its worktree's folder
(a `--resume` appends to the same file; a fresh start adds one; subagents write under
`<id>/subagents/`), so every transcript there written since the session began counts.

Reading is incremental: each file's offset (complete lines only) and the running totals
are kept in the reader's state; the last `RECENT` message ids are kept with what was
counted for them, so a message whose lines straddle two reads is still counted once.

Spend never goes down: a later line of a message counts each kind of token at the
highest of its lines (a line with the same id and a smaller usage changes nothing and is
reported as a rewrite); a transcript that got shorter (cut, or rewritten) or was deleted
keeps what was counted from it and is reported; one cut is read again from its start,
its messages already counted staying at their highest (a message older than the last
`RECENT` may count twice: more, never less).
"""

from __future__ import annotations

import json
from pathlib import Path

from board.models import Session
from board.spend import Usage
from workers.agents import agent_files
from workers.agents.adapter import SpendReading
from workers.agents.claude import transcript

SOURCE = "claude transcript"
RECENT = 500  # message ids remembered across reads (lines of one message are adjacent)


def read_spend(home: Path, session: Session, state: dict) -> SpendReading | None:
    folder = _folder(home, session, state)
    if folder is None and state.get("offsets"):  # its transcripts are gone: figure stays
        counted = {model: Usage(*value) for model, value in state.get("totals", {}).items()}
        return SpendReading(counted, SOURCE, {**state, "offsets": {}},
                            rewritten=("transcripts were deleted",))
    if folder is None:
        return None
    files = [path for path in (*folder.glob("*.jsonl"), *folder.glob("*/subagents/*.jsonl"))
             if _mtime(path) >= session.created_at - 1]
    offsets: dict[str, int] = dict(state.get("offsets", {}))
    rewritten: list[str] = []
    for path in files:
        if _size(path) < offsets.get(str(path), 0):  # cut or rewritten: read it again;
            offsets[str(path)] = 0  # messages already counted count at their highest
            rewritten.append(f"transcript {path.name} was cut")
    for gone in [name for name in offsets if not Path(name).exists()]:
        offsets.pop(gone)  # its messages stay counted; one written again is read anew
        rewritten.append(f"transcript {Path(gone).name} was deleted")
    totals = {model: list(value) for model, value in state.get("totals", {}).items()}
    recent: dict[str, list] = dict(state.get("recent", {}))
    for path in sorted(files):
        offsets[str(path)] = _read_from(path, offsets.get(str(path), 0), totals, recent,
                                        rewritten)
    while len(recent) > RECENT:
        recent.pop(next(iter(recent)))
    by_model = {model: Usage(*value) for model, value in totals.items()}
    return SpendReading(by_model, SOURCE, {"folder": str(folder), "offsets": offsets,
                                           "totals": totals, "recent": recent},
                        rewritten=tuple(rewritten))


def _folder(home: Path, session: Session, state: dict) -> Path | None:
    """The worktree's transcript folder: where its recorded conversation is."""
    conversation = agent_files.read_value(home, session.name, agent_files.CONVERSATION)
    found = transcript.transcript_path(conversation or "")
    if found is not None:
        return found.parent
    known = state.get("folder")
    return Path(known) if known and Path(known).is_dir() else None


def _read_from(path: Path, offset: int, totals: dict[str, list], recent: dict[str, list],
               rewritten: list[str]) -> int:
    """Count the assistant messages in `path` after byte `offset`; the new offset (the
    end of its last complete line)."""
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            data = handle.read()
    except OSError:
        return offset
    end = data.rfind(b"\n") + 1
    for raw in data[:end].splitlines():
        if b'"usage"' in raw and b'"assistant"' in raw:
            key = _count(raw, totals, recent)
            if key is not None:
                rewritten.append(f"message {key} was rewritten smaller")
    return offset + end


def _count(raw: bytes, totals: dict[str, list], recent: dict[str, list]) -> str | None:
    """Count one assistant line; the message id when its usage is below what was already
    counted for that message (which then stays)."""
    try:
        entry = json.loads(raw)
    except ValueError:
        return None
    message = entry.get("message") if isinstance(entry, dict) else None
    if entry.get("type") != "assistant" or not isinstance(message, dict):
        return None
    usage, model = message.get("usage"), message.get("model")
    if not isinstance(usage, dict) or not isinstance(model, str):
        return None
    counted = [_tokens(usage, key) for key in ("input_tokens", "output_tokens",
                                               "cache_read_input_tokens",
                                               "cache_creation_input_tokens")]
    key = str(message.get("id") or entry.get("uuid") or "")
    before = recent.get(key)
    if before is not None and before[0] != model:  # another model's: both stay counted
        key = f"{key}/{model}"
        before = recent.get(key)
    shrunk = None
    if before is not None:  # another line of a message already counted: the higher stays
        recent.pop(key)
        if sum(counted) < sum(before[1:]):
            shrunk = key
        counted = [max(now, was) for now, was in zip(counted, before[1:], strict=True)]
        _add(totals, model, [-value for value in before[1:]])
    recent[key] = [model, *counted]
    _add(totals, model, counted)
    return shrunk


def _add(totals: dict[str, list], model: str, values: list[int]) -> None:
    row = totals.setdefault(model, [0, 0, 0, 0])
    for index, value in enumerate(values):
        row[index] += value
    if not any(row):
        totals.pop(model)


def _tokens(usage: dict, key: str) -> int:
    value = usage.get(key)
    return value if isinstance(value, int) and value > 0 else 0


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
