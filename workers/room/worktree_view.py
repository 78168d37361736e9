"""A session's worktree as the operator looks at it: its diff and its changed files."""

from __future__ import annotations

from pathlib import Path

from board import sessions
from board.errors import BadInput
from board.room import open_operator_room
from worktrees.status import worktree_status


def _worktree(home: Path, name: str) -> tuple[Path, str | None]:
    with open_operator_room(home) as room:
        session = sessions.require(room.conn, name)
    if not session.worktree or not Path(session.worktree).is_dir():
        raise BadInput(f"{name} has no worktree on disk; see bullpen ls")
    return Path(session.worktree), session.base


def diff(home: Path, name: str) -> str:
    """Commits since the base and uncommitted edits (`bullpen diff NAME`)."""
    from worktrees.changes import session_diff  # here: GitPython-free listing paths

    return session_diff(*_worktree(home, name))


def changed_paths(home: Path, name: str) -> list[str]:
    """The uncommitted files in the session's worktree."""
    path, base = _worktree(home, name)
    return list(worktree_status(path, base).changed_files)


def changed_files(home: Path, name: str) -> int | None:
    """How many files differ in the session's worktree (None: no worktree)."""
    with open_operator_room(home) as room:
        session = sessions.get(room.conn, name)
    if session is None or not session.worktree or not Path(session.worktree).is_dir():
        return None
    return len(worktree_status(session.worktree, session.base).changed_files)
