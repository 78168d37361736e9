"""Opening the room for one command, as the identity in the environment."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from board.errors import BadInput
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
    import argparse  # here: `note send TO TEXT` imports this module without parsing

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
