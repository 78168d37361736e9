"""Removing a session's worktree and branch, refusing whenever work would be lost."""

from __future__ import annotations

from pathlib import Path

from worktrees import precious
from worktrees.base import forget_branch_config
from worktrees.changes import branch_head
from worktrees.errors import BadWorktreeInput, UnsafeRemoval, WorktreeError
from worktrees.gitcmd import first_line, run_git
from worktrees.lock import worktrees_locked
from worktrees.models import RegisteredWorktree, RemovedWorktree
from worktrees.naming import BRANCH_PREFIX, branch_for, check_branch_allowed, worktree_path
from worktrees.repo import MAIN_HEAD, list_worktrees, main_root
from worktrees.status import worktree_status

_SHOWN_FILES = 5  # enough to recognise the work without flooding the one-line error


def remove_worktree(repo_root: Path | str, name: str, force: bool = False,
                    delete_branch: bool = True) -> RemovedWorktree:
    """Remove session `name`'s worktree and (unless `delete_branch=False`) its branch.

    Without `force`, refuses with UnsafeRemoval when the worktree has uncommitted changes
    (untracked files included), precious ignored files or hidden edits (see
    worktrees.precious), the branch holds commits the main checkout's HEAD lacks, or
    stashes were made on it.
    Only `bullpen/` branches are ever deleted; a directory git does not know is left alone.
    """
    root = main_root(repo_root)
    branch = check_branch_allowed(branch_for(name))
    with worktrees_locked(root):
        return _remove(root, name, branch, force, delete_branch)


def check_removable(repo_root: Path | str, name: str, delete_branch: bool = True) -> None:
    """Raise UnsafeRemoval if removing session `name`'s worktree (and, if `delete_branch`,
    its branch) would lose work; nothing is changed (callers check before they stop
    anything)."""
    root = main_root(repo_root)
    branch = check_branch_allowed(branch_for(name))
    _Found(root, name, branch, delete_branch=delete_branch).refuse_if_unsafe()


class _Found:
    """A session's worktree and branch as git knows them, for one removal."""

    def __init__(self, root: Path, name: str, branch: str, delete_branch: bool) -> None:
        self.root, self.branch = root, branch
        self.path = worktree_path(root, name)
        self.registered = next((wt for wt in list_worktrees(root)
                                if wt.path == self.path.resolve()), None)
        self.live = (self.registered is not None and not self.registered.prunable
                     and self.path.exists())
        self.tip = branch_head(root, branch) if delete_branch else None
        if self.registered is None and branch_head(root, branch) is None:
            raise BadWorktreeInput(f"no worktree or branch for session {name!r}; "
                                   "see git worktree list")

    def refuse_if_unsafe(self) -> None:
        if self.live:
            _refuse_if_dirty(self.path)
            _refuse_if_hidden_work(self.path, self.root)
        _refuse_if_unmerged(self.root, self.branch, self.tip, self.registered)
        stashes = precious.stashes_of(self.root, self.branch)
        if stashes:
            raise UnsafeRemoval(f"{self.branch} has {len(stashes)} stash(es) ("
                                f"{precious.shown(stashes)}); apply or drop them"
                                " (git stash list), or remove with --force")


def _remove(root: Path, name: str, branch: str, force: bool,
            delete_branch: bool) -> RemovedWorktree:
    found = _Found(root, name, branch, delete_branch)
    path, registered, live, tip = found.path, found.registered, found.live, found.tip
    if not force:
        found.refuse_if_unsafe()

    removed = False
    if live:
        flags = ("--force", "--force") if force else ()  # twice: also when locked
        result = run_git(root, "worktree", "remove", *flags, str(path), ok=(0, 128))
        if result.status != 0:
            # git re-checks cleanliness itself, so work appearing since our check is safe too.
            raise UnsafeRemoval(f"git refused to remove {path}: {first_line(result.stderr)}; "
                                "commit or discard the changes, or remove with --force")
        removed = True
    elif registered is not None:
        run_git(root, "worktree", "prune")  # directory already gone: forget it

    deleted = tip is not None and _delete_branch(root, branch, tip)
    return RemovedWorktree(name, path, branch, worktree_removed=removed, branch_deleted=deleted)


def _refuse_if_dirty(path: Path) -> None:
    changed = worktree_status(path).changed_files
    if changed:
        shown = ", ".join(changed[:_SHOWN_FILES])
        more = f" and {len(changed) - _SHOWN_FILES} more" if len(changed) > _SHOWN_FILES else ""
        raise UnsafeRemoval(f"{path} has uncommitted changes ({shown}{more}); "
                            "commit or discard them, or remove with --force")


def _refuse_if_hidden_work(path: Path, root: Path) -> None:
    """Refuse when git status shows nothing but removal would still lose work."""
    found = []
    ignored = precious.precious_ignored(path, root)
    if ignored:
        found.append(f"ignored files that are not build output ({precious.shown(ignored)})")
    hidden = precious.hidden_edits(path)
    if hidden:
        found.append("edits hidden by skip-worktree or assume-unchanged"
                     f" ({precious.shown(hidden)})")
    if found:
        raise UnsafeRemoval(f"{path} holds {'; and '.join(found)}; move or commit them,"
                            " or remove with --force")


def _refuse_if_unmerged(root: Path, branch: str, tip: str | None,
                        registered: RegisteredWorktree | None) -> None:
    """Refuse if removal would make commits unreachable from the main checkout's HEAD."""
    at_risk = [tip] if tip else []
    if registered is not None and registered.branch is None and registered.head:
        at_risk.append(registered.head)  # a detached HEAD's commits live only in the worktree
    if not at_risk:
        return
    count = int(run_git(root, "rev-list", "--count", *at_risk, "--not", MAIN_HEAD).stdout)
    if count:
        raise UnsafeRemoval(f"{branch} has {count} commit(s) not in the main checkout's HEAD; "
                            "merge them into it first, or remove with --force")


def _delete_branch(root: Path, branch: str, tip: str) -> bool:
    if not branch.startswith(BRANCH_PREFIX):
        return False  # never delete a branch bullpen did not create
    holder = next((wt for wt in list_worktrees(root) if wt.branch == branch), None)
    if holder is not None:
        raise WorktreeError(f"{branch} is checked out at {holder.path}; "
                            "switch that checkout to another branch first")
    # Compare-and-delete: if a commit landed since we checked, git refuses.
    run_git(root, "update-ref", "-d", f"refs/heads/{branch}", tip)
    forget_branch_config(root, branch)
    return True
