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
        return check_home(Path(_checked_path(explicit, "BULLPEN_HOME")).resolve())
    return main_worktree(start) / ROOM_DIR


NAME_MAX = 255  # bytes in one path component (Linux, macOS)
PATH_MAX = 4096


def _checked_path(value: str, what: str) -> str:
    """`value` if the OS can take it as a path; else BadInput naming `what`."""
    try:
        encoded = os.fsencode(value)
    except UnicodeError:
        raise BadInput(f"{what} is not a valid path") from None
    if b"\0" in encoded:
        raise BadInput(f"{what} contains a NUL byte")
    if len(encoded) > PATH_MAX:
        raise BadInput(f"{what} is {len(encoded)} bytes long; the limit is {PATH_MAX}")
    longest = max(encoded.split(b"/"), key=len)
    if len(longest) > NAME_MAX:
        raise BadInput(f"{what} has a {len(longest)}-byte name in it; the limit is {NAME_MAX}")
    return value


def check_home(home: Path) -> Path:
    """Refuse a room directory that cannot be one: `/`, a file, or someone else's."""
    if home == Path(home.anchor):
        raise BadInput(f"BULLPEN_HOME is {home}; point it at a room directory (for example"
                       " .bullpen in your repository), or unset it")
    try:
        info = home.stat()
    except FileNotFoundError:
        return home
    except OSError as error:
        raise BadInput(f"cannot use {home} as the room ({error.strerror});"
                       " check BULLPEN_HOME") from None
    if not home.is_dir():
        raise BadInput(f"{home} is not a directory; point BULLPEN_HOME at a room directory")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise BadInput(f"{home} belongs to another user (uid {info.st_uid}); use a room"
                       " directory you own")
    return home


def repo_root_of_home(home: Path) -> Path:
    """The main checkout a room belongs to (the directory holding `.bullpen/`)."""
    return home.parent
