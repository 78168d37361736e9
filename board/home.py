"""Finding the room: `.bullpen/` in the repository's main worktree, from any of its worktrees.

Pure file reads (no git subprocess, no GitPython) keep the fast commands fast.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from board.errors import BadInput

ROOM_DIR = ".bullpen"
DB_NAME = "bullpen.db"


def find_git_dir(start: Path) -> Path | None:
    """The `.git` entry (directory or gitfile) of the checkout containing `start`."""
    for directory in (start, *start.parents):
        candidate = directory / ".git"
        if candidate.exists():
            return candidate
    return None


def main_worktree(start: Path | None = None) -> Path:
    """The main checkout of the repository containing `start` (default: the cwd)."""
    start = (start or Path.cwd()).resolve()
    git_entry = find_git_dir(start)
    if git_entry is None:
        raise BadInput(f"{start} is not inside a git repository; run bullpen in one (git init)")
    if git_entry.is_dir():
        return git_entry.parent
    common = _common_dir_of_gitfile(git_entry)
    if common.name != ".git":
        raise BadInput(f"{common} is a bare repository; bullpen needs a checkout")
    return common.parent


def _common_dir_of_gitfile(gitfile: Path) -> Path:
    text = gitfile.read_text().strip()
    if not text.startswith("gitdir:"):
        raise BadInput(f"{gitfile} is not a git worktree link")
    git_dir = Path(text.removeprefix("gitdir:").strip())
    if not git_dir.is_absolute():
        git_dir = (gitfile.parent / git_dir).resolve()
    commondir_file = git_dir / "commondir"
    if not commondir_file.exists():  # a submodule: its git dir is its own common dir
        return git_dir
    common = Path(commondir_file.read_text().strip())
    return common if common.is_absolute() else (git_dir / common).resolve()


def room_home(env: Mapping[str, str] | None = None, start: Path | None = None) -> Path:
    """The room directory: `BULLPEN_HOME` if set, else `<main worktree>/.bullpen`."""
    env = os.environ if env is None else env
    explicit = env.get("BULLPEN_HOME")
    if explicit:
        return Path(explicit).resolve()
    return main_worktree(start) / ROOM_DIR


def repo_root_of_home(home: Path) -> Path:
    """The main checkout a room belongs to (the directory holding `.bullpen/`)."""
    return home.parent
