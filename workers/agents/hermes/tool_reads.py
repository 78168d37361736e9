"""Which files one Hermes tool call read: its `post_tool_call` hook names the path.

Stdlib and `board` only: the hook process imports this on every call.
"""

from __future__ import annotations

from pathlib import Path

from board.repo_paths import repo_relative
from workers.agents.tool_input import named_paths

HERMES_READ_TOOLS = ("read_file", "search_files", "patch", "write_file")
HERMES_PATH_KEYS = ("path",)


def hermes_read_paths(tool: object, tool_input: object, cwd: Path) -> list[str]:
    """The files (repo-relative) one Hermes tool call named, when it reads or edits."""
    if tool not in HERMES_READ_TOOLS:
        return []
    return repo_relative(named_paths(tool_input, HERMES_PATH_KEYS), cwd, strict=False)
