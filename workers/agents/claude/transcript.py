"""Claude Code's own record of a conversation: the tool calls its hooks may have missed.

Claude keeps each conversation as JSON lines in
`$CLAUDE_CONFIG_DIR/projects/<cwd>/<conversation>.jsonl` (`~/.claude` by default). Each
assistant line carries its `timestamp`, the `cwd` it ran in and its `tool_use` parts
(name and input, exactly what a `PostToolUse` hook is given). The per-tool hook is an
HTTP call to the coordinator, so tool calls made while no coordinator ran are recorded
nowhere else; the coordinator reads them back from here when it starts.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path

from board.patterns import lazy
from board.records import record

PROJECTS_DIR = "projects"
CONVERSATION_ID = lazy(r"[A-Za-z0-9][A-Za-z0-9_-]*")  # Claude's are UUIDs


@record(frozen=True)
class ToolUse:
    """One tool call Claude made: when (epoch seconds), which tool, with what, where."""

    at: float
    tool: str
    tool_input: dict
    cwd: Path


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where Claude keeps its state: `$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    env = os.environ if env is None else env
    configured = env.get("CLAUDE_CONFIG_DIR")
    return Path(configured) if configured else Path(env.get("HOME") or Path.home()) / ".claude"


def transcript_path(conversation: str, env: Mapping[str, str] | None = None) -> Path | None:
    """The file Claude keeps conversation `conversation` in, or None when there is none."""
    if not CONVERSATION_ID.fullmatch(conversation):
        return None  # an id is one plain file name: never a path, never a glob pattern
    return next((config_dir(env) / PROJECTS_DIR).glob(f"*/{conversation}.jsonl"), None)


def tool_uses(path: Path, after: float) -> Iterator[ToolUse]:
    """The tool calls recorded in `path` later than `after`, oldest first. Lines Claude
    was still writing, or that are not what this expects, are passed over."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return
    for line in lines:
        if '"tool_use"' not in line:
            continue  # most lines (results, text, metadata): no need to decode them
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("type") == "assistant":
            yield from _tool_uses_of(entry, after)


def _tool_uses_of(entry: dict, after: float) -> Iterator[ToolUse]:
    at, cwd = _epoch(entry.get("timestamp")), entry.get("cwd")
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if at is None or at <= after or not isinstance(cwd, str) or not isinstance(content, list):
        return
    for part in content:
        if (isinstance(part, dict) and part.get("type") == "tool_use"
                and isinstance(part.get("name"), str) and isinstance(part.get("input"), dict)):
            yield ToolUse(at, part["name"], part["input"], Path(cwd))


def _epoch(stamp: object) -> float | None:
    if not isinstance(stamp, str):
        return None
    try:
        return datetime.fromisoformat(stamp).timestamp()  # "2026-12-01T11:10:38.395Z"
    except ValueError:
        return None
