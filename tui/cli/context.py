"""Opening the room for one command, as the identity in the environment."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from board.errors import BadInput
from board.home import find_git_dir
from board.room import Room, open_room


@contextmanager
def room() -> Iterator[Room]:
    opened = open_room()
    try:
        yield opened
    finally:
        opened.close()


MAX_ID = 2**63 - 1  # SQLite's largest integer


def record_id(text: str) -> int:
    """argparse type for a task or note id: a whole number SQLite can hold."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an id (a whole number)") from None
    if not -MAX_ID <= value <= MAX_ID:
        raise argparse.ArgumentTypeError(f"{text} is too large to be an id")
    return value


def require_session(current: Room, action: str) -> str:
    """The calling session's name; the operator cannot do `action`."""
    if current.caller.is_operator:
        raise BadInput(f"only a session can {action}; set BULLPEN_SESSION and BULLPEN_TOKEN")
    return current.caller.name


def repo_relative(paths: list[str], cwd: Path | None = None) -> list[str]:
    """Paths as given, made relative to the checkout that holds the cwd.

    A path outside that checkout (or inside its .git) is refused, so nothing is recorded.
    """
    cwd = (cwd or Path.cwd()).resolve()
    git_entry = find_git_dir(cwd)
    if git_entry is None:
        raise BadInput(f"{cwd} is not inside a git repository")
    top = git_entry.parent
    relative = []
    for raw in paths:
        if not raw.strip() or any(ord(char) < 32 or ord(char) == 127 for char in raw):
            raise BadInput(f"{raw!r} is not a file path")
        absolute = (cwd / raw).resolve()
        try:
            inside = absolute.relative_to(top)
        except ValueError:
            raise BadInput(f"{raw!r} is outside the repository ({top})") from None
        if not inside.parts or inside.parts[0] in (".git", ".bullpen"):
            raise BadInput(f"{raw!r} is not a file of the repository")
        relative.append(inside.as_posix())
    return relative
