"""What the conflict radar tells each side: who, which files and lines, what to do."""

from __future__ import annotations

import time

from board import pings
from board.conflicts import Conflict
from board.connection import Connection
from board.vocabulary import NoteKind

SHOWN = 5  # files named in one note


def _ranges(ranges: tuple[tuple[int, int], ...]) -> str:
    if not ranges:
        return "the whole file"
    words = [f"{a}-{b}" if a != b else f"{a}" for a, b in ranges]
    return ("line " if len(words) == 1 and "-" not in words[0] else "lines ") + ", ".join(words)


def _where(conflict: Conflict, me: str) -> str:
    other = conflict.other(me)
    parts = []
    for item in conflict.files[:SHOWN]:
        parts.append(f"{item.path} ({_ranges(conflict.lines_of(me, item.path))} yours,"
                     f" {_ranges(conflict.lines_of(other, item.path))} theirs)")
    more = len(conflict.files) - SHOWN
    return "; ".join(parts) + (f" and {more} more files" if more > 0 else "")


def _commits(conflict: Conflict, who: str) -> str:
    shown = conflict.a_commits if who == conflict.a else conflict.b_commits
    return ", ".join(shown[-5:]) or "no commits yet"


def found_note(conflict: Conflict, me: str, bullpen: str = "bullpen") -> str:
    """The `conflict` note to `me` when the radar first predicts this conflict."""
    other = conflict.other(me)
    first = conflict.files[0].path if conflict.files else ""
    if conflict.with_base:
        return (f"Conflict ahead ({_episode(conflict)}): your work will not merge"
                f" with {other} in {_where(conflict, me)}"
                f" — {other} changed them since you branched ({_commits(conflict, other)}). Merge"
                f" {other} into your branch and resolve before landing: git merge {other}; see"
                f" its change: git diff HEAD...{other} -- {first}")
    return (f"Conflict ahead with {other} ({_episode(conflict)}): your work and"
            f" theirs will not merge in"
            f" {_where(conflict, me)} (your commits: {_commits(conflict, me)}; theirs:"
            f" {_commits(conflict, other)}). Coordinate before going further:"
            f" {bullpen} note send {other} 'I am changing {first} …'; see their change:"
            f" {bullpen} diff {other} -- {first}")


def cleared_note(conflict: Conflict, me: str) -> str:
    """The `conflict` note to `me` once the predicted conflict is gone."""
    other = conflict.other(me)
    files = ", ".join(conflict.paths[:SHOWN])
    return (f"Conflict cleared ({_episode(conflict)}): your work and"
            f" {other}'s merge cleanly again ({files}); nothing to coordinate there now.")


def _episode(conflict: Conflict) -> str:
    """`conflict #3 since 14:02:11`: each episode's notes differ, so none is dropped as a
    repeat of an earlier episode's note still unread."""
    began = time.strftime("%H:%M:%S", time.localtime(conflict.since))
    return f"conflict #{conflict.id} since {began}"


def _sides(conflict: Conflict) -> tuple[str, ...]:
    """Who is told: both sessions, or the one session of a conflict with the base."""
    return (conflict.a,) if conflict.with_base else (conflict.a, conflict.b)


def tell_found(conn: Connection, conflict: Conflict, bullpen: str) -> None:
    """Send each side its note once (keyed by the conflict's id: a restart sends none)."""
    for who in _sides(conflict):
        key = f"conflict:{conflict.id}:{who}"
        if not pings.was_sent(conn, key):
            pings.send_once(conn, key, who, found_note(conflict, who, bullpen),
                            kind=NoteKind.CONFLICT)


def tell_cleared(conn: Connection, conflict: Conflict) -> None:
    """Tell each side once that the conflict is gone."""
    for who in _sides(conflict):
        pings.send_once(conn, f"conflict-cleared:{conflict.id}:{who}", who,
                        cleared_note(conflict, who), kind=NoteKind.CONFLICT)
