"""Creating (or finding again) a session's worktree on its own `bullpen/<name>` branch."""

from __future__ import annotations

from pathlib import Path

from worktrees.base import record_base, recorded_base
from worktrees.changes import branch_head
from worktrees.errors import BadWorktreeInput, WorktreeError
from worktrees.gitcmd import first_line, git_out, run_git
from worktrees.includes import copy_included
from worktrees.lock import worktrees_locked
from worktrees.models import RegisteredWorktree, WorktreeInfo
from worktrees.naming import branch_for, check_branch_allowed, worktree_path
from worktrees.push_guard import install as guard_pushes
from worktrees.repo import list_worktrees, main_head, main_root, resolve_commit

EXCLUDE_LINE = "/.bullpen/"  # same line the room writes; keeps worktrees out of `git status`
INITIALIZING = "initializing\n"  # git's own word in `locked` while a worktree is made


def create_worktree(repo_root: Path | str, name: str, base: str | None = None) -> WorktreeInfo:
    """Create the worktree of session `name` on branch `bullpen/<name>` and return it.

    `base` is any ref (default: the main checkout's HEAD). If the branch already exists
    (a restart after the directory was removed) it is checked out again and `base` is
    ignored; if the worktree already exists on that branch it is returned unchanged.
    Gitignored files listed in `.worktreeinclude` are copied from the main checkout.
    Its pushes go through bullpen's pre-push guard (`push_guard`), found again too.
    """
    root = main_root(repo_root)
    main_head(root)  # refuses a repository without commits
    branch = check_branch_allowed(branch_for(name))
    path = worktree_path(root, name)
    _exclude_room_dir(root)
    with worktrees_locked(root):
        info = _create(root, name, branch, path, base)
        guard_pushes(root, [info.path])  # its pushes never rewrite a remote's history
        return info


def _create(root: Path, name: str, branch: str, path: Path, base: str | None) -> WorktreeInfo:
    registered = _registered_at(root, path)
    if registered is not None and not registered.prunable and path.exists():
        if registered.branch != branch:
            raise BadWorktreeInput(
                f"{path} is a worktree of {registered.branch or 'a detached HEAD'}, not {branch}; "
                "remove it with git worktree remove or choose another session name"
            )
        finish_initializing(path)
        return WorktreeInfo(name, path, branch, _base_of(root, branch))
    if path.exists():
        raise BadWorktreeInput(f"{path} exists but is not a worktree of {branch}; "
                               "move it away or choose another session name")
    if registered is not None:
        # Its directory was deleted (rm -rf, reboot of a tmpfs): drop the stale registration.
        run_git(root, "worktree", "prune")

    if branch_head(root, branch) is not None:
        _add(root, "worktree", "add", "--quiet", str(path), branch)
        base_commit = _base_of(root, branch)
    else:
        base_commit = resolve_commit(root, base or "HEAD")
        _add(root, "worktree", "add", "--quiet", "--no-track", "-b", branch, str(path),
             base_commit)
        record_base(root, branch, base_commit)
    copy_included(root, path)
    return WorktreeInfo(name, path, branch, base_commit)


def _registered_at(root: Path, path: Path) -> RegisteredWorktree | None:
    target = path.resolve()
    return next((wt for wt in list_worktrees(root) if wt.path == target), None)


def _base_of(root: Path, branch: str) -> str:
    """The recorded base, else where the branch left the main checkout's history."""
    recorded = recorded_base(root, branch)
    if recorded is not None:
        return recorded
    result = run_git(root, "merge-base", branch, "HEAD", ok=(0, 1))
    return result.stdout.strip() or git_out(root, "rev-parse", branch)


def _add(root: Path, *args: str) -> None:
    result = run_git(root, *args, ok=(0, 128))
    if result.status != 0:
        # Typically: the branch is already checked out in another worktree.
        raise WorktreeError(f"could not create the worktree: {first_line(result.stderr)}")


def _exclude_room_dir(root: Path) -> None:
    exclude = Path(git_out(root, "rev-parse", "--path-format=absolute",
                           "--git-path", "info/exclude"))
    existing = exclude.read_text() if exclude.exists() else ""
    if EXCLUDE_LINE in existing.splitlines():
        return
    exclude.parent.mkdir(parents=True, exist_ok=True)
    prefix = "" if not existing or existing.endswith("\n") else "\n"
    with exclude.open("a") as handle:
        handle.write(f"{prefix}{EXCLUDE_LINE}\n")


def finish_initializing(path: Path) -> None:
    """Check out again a worktree whose making was cut short (still `locked` as
    initializing), then unlock it; nothing for any other worktree."""
    gitfile = path / ".git"
    try:
        admin = Path(gitfile.read_text().removeprefix("gitdir: ").strip())
        locked = (admin / "locked").read_text()
    except OSError:
        return
    if locked == INITIALIZING:
        check_out(path)
        (admin / "locked").unlink(missing_ok=True)


def check_out(path: Path) -> None:
    """What `git worktree add` runs in a new worktree to check it out."""
    result = run_git(path, "reset", "--hard", "--no-recurse-submodules", "--quiet",
                     ok=(0, 128))
    if result.status != 0:
        raise WorktreeError(f"could not check out {path}: {first_line(result.stderr)}")
