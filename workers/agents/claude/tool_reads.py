"""Which files one Claude tool call read, from the call's name and input.

The same answer serves a tool-call hook (as it happens) and Claude's transcript (read
back after a time without a coordinator), so both record the same files.
"""

from __future__ import annotations

from pathlib import Path

from board.repo_paths import repo_relative
from workers.agents.tool_input import named_paths

CLAUDE_READ_TOOLS = ("Read", "Grep", "Glob", "Edit", "MultiEdit", "Write", "NotebookEdit")
CLAUDE_PATH_KEYS = ("file_path", "notebook_path", "path")


def claude_read_paths(tool: object, tool_input: object, cwd: Path) -> list[str]:
    """The files (repo-relative) one Claude tool call read: a file tool's path, or the
    file arguments of a Bash command's reading programs; only files that exist."""
    raw: list[str] = []
    if tool in CLAUDE_READ_TOOLS:
        raw = named_paths(tool_input, CLAUDE_PATH_KEYS)
    elif tool == "Bash" and isinstance(tool_input, dict):
        from workers.agents.bash_reads import read_paths  # the hook process rarely needs it

        raw = read_paths(str(tool_input.get("command") or ""))
    found = [path for path in raw if (cwd / path).is_file()]
    return repo_relative(found, cwd, strict=False) if found else []
