"""The commit a worktree's HEAD points at, read from git's files without running git.

`note send` runs on every note an agent sends, and a `git rev-parse` would be a process
of its own; reading two or three small files costs a fraction of a millisecond. Only
what git itself writes for a worktree is understood (a `.git` file naming its gitdir,
`HEAD` as a ref or a detached sha, the ref loose or in packed-refs); anything else is
None, never a guess. It lives outside the `worktrees` package, whose import brings
GitPython (~100 ms) onto the path of every note.
"""

from __future__ import annotations

from pathlib import Path

from board import sessions
from board.connection import Connection
from board.identity import Caller

_SHA_LENGTHS = (40, 64)  # SHA-1 and SHA-256 repositories


def head_commit(worktree: str | Path | None) -> str | None:
    """The sha HEAD points at in `worktree`, or None when it cannot be read."""
    if not worktree:
        return None
    try:
        gitdir = git_dir_of(Path(worktree))
        head = (gitdir / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head if _is_sha(head) else None
        ref = head.removeprefix("ref: ")
        common = gitdir / (gitdir / "commondir").read_text().strip() \
            if (gitdir / "commondir").exists() else gitdir
        for place in (gitdir / ref, common / ref):
            if place.is_file():
                sha = place.read_text().strip()
                return sha if _is_sha(sha) else None
        return _packed(common / "packed-refs", ref)
    except (OSError, UnicodeDecodeError):
        return None


def sender_head(conn: Connection, caller: Caller) -> str | None:
    """The commit the calling session's worktree is at (None for the operator): what a
    note carries for the loop guard (board.chains)."""
    if caller.is_operator:
        return None
    return head_commit(sessions.worktree_of(conn, caller.name))


def git_dir_of(worktree: Path) -> Path:
    """The checkout's own git dir (its HEAD and index): `.git` itself, or the directory
    a linked worktree's `.git` file names; OSError when it is neither."""
    dot_git = worktree / ".git"
    if dot_git.is_dir():
        return dot_git
    text = dot_git.read_text().strip()
    if not text.startswith("gitdir: "):
        raise OSError(f"{dot_git}: not a gitdir file")
    path = Path(text.removeprefix("gitdir: "))
    return path if path.is_absolute() else worktree / path


def _packed(packed_refs: Path, ref: str) -> str | None:
    if not packed_refs.is_file():
        return None
    for line in packed_refs.read_text().splitlines():
        sha, _, name = line.partition(" ")
        if name == ref and _is_sha(sha):
            return sha
    return None


def _is_sha(text: str) -> bool:
    return len(text) in _SHA_LENGTHS and all(c in "0123456789abcdef" for c in text)
