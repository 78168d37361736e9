"""Paths a session names, made relative to the checkout it works in.

One rule for every entry point (`bullpen read`, `bullpen diff -- PATH`, agent hooks,
the MCP server): a recorded path is a file inside the checkout, never in `.git` or
`.bullpen`, never a directory, and free of control characters.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from board.errors import BadInput
from board.home import find_git_dir

_HIDDEN = (".git", ".bullpen")


def repo_relative(paths: Iterable[str], cwd: Path | None = None, *,
                  strict: bool = True) -> list[str]:
    """`paths` relative to the checkout holding `cwd` (default: the current directory).

    With `strict` (commands a user or agent typed) a path that breaks the rule is refused
    with BadInput and nothing is returned; without it (hooks, which must never disturb
    the agent) such paths are skipped.
    """
    cwd = (cwd or Path.cwd()).resolve()
    git_entry = find_git_dir(cwd)
    if git_entry is None:
        if strict:
            raise BadInput(f"{cwd} is not inside a git repository")
        return []
    top = git_entry.parent
    relative: list[str] = []
    for raw in paths:
        problem = _problem(raw, cwd, top)
        if isinstance(problem, str):
            if strict:
                raise BadInput(problem)
            continue
        relative.append(problem.as_posix())
    return relative


def _problem(raw: str, cwd: Path, top: Path) -> str | Path:
    """What is wrong with `raw`, or its path relative to `top` when nothing is."""
    if not raw.strip() or any(ord(char) < 32 or ord(char) == 127 for char in raw):
        return f"{raw!r} is not a file path"
    absolute = (cwd / os.path.expanduser(raw)).resolve()
    try:
        inside = absolute.relative_to(top)
    except ValueError:
        return f"{raw!r} is outside the repository ({top})"
    if not inside.parts or inside.parts[0] in _HIDDEN or absolute.is_dir():
        return f"{raw!r} is not a file of the repository"
    return inside
