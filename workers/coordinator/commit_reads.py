"""The git reads the watcher tells a HEAD move's commits by: each checkout's HEAD, how it
moved there (its reflog), which other checkouts' commits are not its own work, and the
batch a move makes."""

from __future__ import annotations

import subprocess
from pathlib import Path

from workers.coordinator.change_filter import ChangeBatch, Target, dirty


class GitFailed(Exception):
    """A git read the watcher needs failed (its command and what git said)."""


def read_git(cwd: Path, *args: str) -> str:
    """git's output, or GitFailed: a commit must not be skipped because git failed."""
    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                            check=False)
    if result.returncode != 0:
        said = result.stderr.strip().splitlines()[-1:] or [f"exit {result.returncode}"]
        raise GitFailed(f"git {args[0]}: {said[0][:200]}")
    return result.stdout.strip()


def try_git(cwd: Path, *args: str) -> str | None:
    """git's output, or None where a failed read only means "not now"."""
    try:
        return read_git(cwd, *args)
    except GitFailed:
        return None


# How a reflog entry names a HEAD move that made its commit in that checkout (a commit,
# an amend, a cherry-pick, a revert, a rebase's picks), as against bringing commits in.
_MADE_HERE = ("commit", "cherry-pick", "revert", "rebase")


REFLOG_LOOK = 50  # reflog entries searched for the move to a HEAD (newest first)


def _move_to(root: Path, new: str) -> str | None:
    """How HEAD came to `new`: the subject of the newest reflog entry that moved it
    there (None when the reflog does not say). Not the newest entry: HEAD may have moved
    on since it was read (seen in CI: a dependent committed on top of the fast-forward
    the baton made, between the watcher's two reads, and took its parent's commit)."""
    entries = try_git(root, "log", "--walk-reflogs", f"-{REFLOG_LOOK}",
                      "--format=%H %gs", "HEAD")
    for entry in (entries or "").splitlines():
        sha, _, subject = entry.partition(" ")
        if sha == new:
            return subject
    return None


def not_its_own(root: Path, new: str, others: list[str]) -> list[str]:
    """The other checkouts' HEADs whose commits are not this checkout's own work.

    A HEAD that moved to `new` by a fast-forward, a merge or a reset took others' commits
    in: all their HEADs are left out. One that moved by its own commit keeps the commits
    another checkout has since taken in (a dependent handed its parent's work took it
    before this move was read, under load): only the HEADs that do not contain `new` are."""
    moved_by = _move_to(root, new) if others else None
    if not moved_by or not moved_by.startswith(_MADE_HERE):
        return others
    containing = set(read_git(root, "for-each-ref", "--contains", new,
                              "--format=%(objectname)", "refs/heads").split())
    return [sha for sha in others if sha not in containing]


def commit_batch(target: Target, old: str, new: str, others: list[str],
                 written: set[str]) -> tuple[ChangeBatch | None, set[str]]:
    """The batch for the target's HEAD moving old -> new (None when none of the commits is
    its own), and every path that differs between them. `others`: the other checkouts'
    HEADs; `written`: the files written with the move (those not written and clean were
    committed as they stood: `as_edited`)."""
    root = target.root
    net = set(read_git(root, "diff", "--name-only", old, new).splitlines())
    others = not_its_own(root, new, others)
    own = read_git(root, "rev-list", new, "--not", old, *others).split()
    if not own:  # a fast-forward onto others' commits, or a reset: nothing of its own
        return None, net
    files = set(read_git(root, "log", "--name-only", "--format=", new, "--not", old,
                         *others).splitlines())
    files.discard("")
    if not files:
        return None, net
    message = read_git(root, "log", "-1", "--format=%s", own[0])
    unwritten = sorted(files - written)
    still_dirty = dirty(root, unwritten)
    as_edited = tuple(path for path in unwritten if path not in still_dirty)
    return ChangeBatch(target.source, tuple(sorted(files)), own[0], message,
                       as_edited), net
