"""Where a worktree stands, in as few git calls as possible (it runs on every `bullpen ls`)."""

from __future__ import annotations

from pathlib import Path

from worktrees.gitcmd import run_git, run_git_all
from worktrees.models import WorktreeStatus
from worktrees.repo import MAIN_HEAD, resolve_commit


def worktree_status(path: Path | str, base: str | None = None) -> WorktreeStatus:
    """Uncommitted files, and commits ahead of / behind `base` (default: the main checkout's
    HEAD), for the worktree at `path`.

    Two git calls when `base` is omitted (status, rev-list), three or four otherwise.
    """
    path = Path(path)
    head, branch, changed = _porcelain(path)
    against = resolve_commit(path, base) if base else MAIN_HEAD
    counts = run_git(path, "rev-list", "--left-right", "--count", f"{against}...HEAD").stdout
    behind, ahead = (int(n) for n in counts.split())
    if base:
        merged = run_git(path, "merge-base", "--is-ancestor", "HEAD", MAIN_HEAD,
                         ok=(0, 1)).status == 0
    else:
        merged = ahead == 0
    return WorktreeStatus(path=path, branch=branch, head=head, dirty=bool(changed),
                          changed_files=changed, ahead=ahead, behind=behind, merged=merged)


def changed_files(paths: list[Path | str]) -> list[tuple[str, ...]]:
    """Each worktree's uncommitted files, one git status each, run together (all `bullpen
    ls` shows of them: its ahead/behind come from workers.room.code_view)."""
    return [_parsed(result.stdout)[2]
            for result in run_git_all([(path, STATUS) for path in paths])]


# Read only: without --no-optional-locks git status refreshes the worktree's index on disk
# (index.lock, then index), under the session's own git, which may then find the lock
# taken, and the change watcher takes an index write for git at work there.
STATUS = ("--no-optional-locks", "status", "--porcelain=v2", "-z", "--branch",
          "--untracked-files=all", "--ignore-submodules=dirty")


def _porcelain(path: Path) -> tuple[str, str | None, tuple[str, ...]]:
    """(head sha, branch or None, changed files) from one `git status --porcelain=v2` call."""
    return _parsed(run_git(path, *STATUS).stdout)


def _parsed(output: str) -> tuple[str, str | None, tuple[str, ...]]:
    head, branch = "", None
    changed: list[str] = []
    fields = iter(output.split("\0"))
    for entry in fields:
        kind = entry[:1]
        if entry.startswith("# branch.oid "):
            head = entry.removeprefix("# branch.oid ")
        elif entry.startswith("# branch.head "):
            name = entry.removeprefix("# branch.head ")
            branch = None if name == "(detached)" else name
        elif kind == "1":  # ordinary change: 8 fields before the path
            changed.append(entry.split(" ", 8)[8])
        elif kind == "2":  # rename or copy: 9 fields, then the old path as its own field
            changed.append(entry.split(" ", 9)[9])
            next(fields, None)
        elif kind == "u":  # unmerged: 10 fields before the path
            changed.append(entry.split(" ", 10)[10])
        elif kind == "?":
            changed.append(entry[2:])
    return head, branch, tuple(changed)
