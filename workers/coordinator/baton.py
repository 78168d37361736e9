"""The baton carries code: a dependent's worktree takes in its parents' final commits at
the moment it is handed its task, so the coder starts on research's files without `sync`.

- one parent: its branch head (a fast-forward when the dependent has no work yet);
- several: their merge, predicted first with `git merge-tree`; if they conflict, nothing
  is merged, the dependent starts from the base and its handoff says which files clash;
- work of its own: the parents' commits come in only when the predicted merge is clean
  and the worktree has no uncommitted changes; otherwise nothing is touched and the
  handoff says what was not merged and why;
- a parent on another machine: its commits are in that machine's clone, so nothing of it
  is merged here and the handoff says on which machine they are.

`base: main` or `base: <ref>` in bullpen.yaml turns this off for a session. Merging goes
through `worktrees.sync`, which never loses uncommitted work. The result is one line
for the handoff (None when there was nothing to carry). Running it again after a crash
finds the commits already there and says so, so the handoff is still sent once.
"""

from __future__ import annotations

import logging
from itertools import combinations
from pathlib import Path

from board import sessions, tasks
from board.connection import Connection
from board.errors import BullpenError
from board.models import Session
from board.vocabulary import BaseMode
from worktrees.naming import branch_for
from worktrees.predict import predict_merge
from worktrees.repo import resolve_commit
from worktrees.status import worktree_status
from worktrees.sync import sync

log = logging.getLogger(__name__)
SHOWN = 5  # files named in one line


def carry(conn: Connection, assignee: str, task_id: int) -> str | None:
    """Bring the final commits of task `task_id`'s parents into `assignee`'s worktree."""
    session = sessions.get(conn, assignee)
    if session is None or not session.worktree or not Path(session.worktree).is_dir():
        return None  # not here (another machine's session) or no worktree yet
    if (session.base_mode or BaseMode.AFTER) != BaseMode.AFTER:
        return None
    worktree = Path(session.worktree)
    parents = _parents(conn, assignee, task_id)
    branches = {name: parent.branch or branch_for(name) for name, parent in parents.items()}
    heads, away = {}, []
    for name, parent in parents.items():
        if parent.machine is not None and parent.machine != session.machine:
            # Its commits are in that machine's clone (a same-named branch here is not them).
            away.append(f"The commits of {name} are on machine {parent.machine}; not merged"
                        f" here (bullpen sync {name} takes them in once they are pushed).")
            continue
        try:
            heads[name] = resolve_commit(worktree, f"refs/heads/{branches[name]}")
        except BullpenError:
            continue  # its branch was removed (landed, or never made): nothing to carry
    said = []
    if heads:
        try:
            said.append(_carry(worktree, branches, heads))
        except BullpenError as error:  # git refused something unexpected: say so, touch nothing
            log.warning("baton for %s: %s", assignee, error)
            said.append(f"Your parents' commits were not merged into your worktree: {error}")
    return " ".join(said + away) or None


def _carry(worktree: Path, branches: dict[str, str], heads: dict[str, str]) -> str:
    # Names are not made possessive ("research' work", "a's and b's"): "of NAME" reads
    # right for every name.
    missing = {n: h for n, h in heads.items() if not _holds(worktree, h)}
    if not missing:
        return f"Your worktree already holds {_shas(heads)}."
    status = worktree_status(worktree)
    if status.dirty:
        return (f"Not merged: {_shas(missing)} — your worktree has uncommitted changes"
                f" ({_files(status.changed_files)}), left untouched; commit them, then run"
                f" {_syncs(missing)} to take in the work of {' and '.join(missing)}.")
    for one, other in combinations(missing, 2):
        clash = predict_merge(worktree, missing[one], missing[other])
        if not clash.clean:
            return (f"Not merged: the work of {one} and the work of {other} conflict in"
                    f" {_files(tuple(f.path for f in clash.files))}; you start from the base."
                    f" Merge them by hand ({_syncs(missing)}) or ask them to agree.")
    own = status.ahead > 0
    for name, head in missing.items():
        clash = predict_merge(worktree, "HEAD", head)
        if not clash.clean:
            return (f"Not merged: commit {head[:7]} of {name} conflicts with your own work in"
                    f" {_files(tuple(f.path for f in clash.files))}; nothing was touched."
                    f" Run bullpen sync {name} --keep-conflicts to resolve it.")
    done: list[str] = []
    for name, head in missing.items():
        report = sync(worktree, branches[name])
        if not report.merged:
            return (f"Merged {', '.join(done) or 'nothing'}; not commit {head[:7]} of {name}:"
                    f" {report.message}")
        done.append(f"{head[:7]} of {name}")
    commits, them, are = ("commits", "them", "are") if len(done) > 1 else ("commit", "it", "is")
    if own:
        return (f"{commits.capitalize()} {' and '.join(done)} {are} merged into your own"
                " commits; no sync needed.")
    return (f"Your worktree now holds {commits} {' and '.join(done)}: you start from {them},"
            " no sync needed.")


def _parents(conn: Connection, assignee: str, task_id: int) -> dict[str, Session]:
    """The sessions whose tasks `task_id` waited for, by name (plan order)."""
    found: dict[str, Session] = {}
    for parent_id in tasks.get(conn, task_id).parents:
        owner = tasks.get(conn, parent_id).assignee
        if not owner or owner == assignee or owner in found:
            continue
        parent = sessions.get(conn, owner)
        if parent is not None:
            found[owner] = parent
    return found


def _holds(worktree: Path, commit: str) -> bool:
    from worktrees.gitcmd import run_git

    return run_git(worktree, "merge-base", "--is-ancestor", commit, "HEAD",
                   ok=(0, 1)).status == 0


def _shas(heads: dict[str, str]) -> str:
    return ", ".join(f"the final commit {head[:7]} of {name}" for name, head in heads.items())


def _files(paths: tuple[str, ...]) -> str:
    shown = ", ".join(paths[:SHOWN])
    return shown + (f" and {len(paths) - SHOWN} more" if len(paths) > SHOWN else "")


def _syncs(heads: dict[str, str]) -> str:
    return "; ".join(f"bullpen sync {name}" for name in heads)
