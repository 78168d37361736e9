"""Creating many sessions' worktrees at once (`bullpen up` of a big plan).

`git worktree add` reads every registered worktree's admin files before it adds one
(about 60 file reads per worktree) and starts three more git processes (`branch`,
`symbolic-ref`, `reset --hard`), so adding 200 costs O(n²) reads and 800 processes.
Here the shared work is done once: the checks, one `git update-ref --stdin` making every
branch in one transaction, and the admin files git documents (gitrepository-layout:
`worktrees/<id>/{gitdir,commondir,HEAD,locked}` and the worktree's `.git` file), written
as git 2.39 writes them; then each worktree is checked out by the same
`git reset --hard --no-recurse-submodules` that `git worktree add` runs, two at a time
(each has its own index and directory). The result is what `git worktree add` makes;
tests/integration/test_worktrees_create_many.py compares the two file by file.

Crash-safe like git's own: a worktree is `locked` ("initializing") until its checkout is
done, and one found still locked is checked out again (`create_worktree`), so a
second `up` finishes what a killed one started. Anything unusual (a post-checkout hook,
relative worktree paths, per-worktree config, sparse checkout, a name git would have
to number, an existing branch) goes through `create_worktree` one by one instead.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from worktrees.base import record_bases
from worktrees.create import INITIALIZING, _exclude_room_dir, check_out, create_worktree
from worktrees.errors import WorktreeError
from worktrees.gitcmd import first_line, git_out, run_git
from worktrees.includes import copy_included, included_files
from worktrees.lock import worktrees_locked
from worktrees.models import WorktreeInfo
from worktrees.naming import branch_for, check_branch_allowed, worktree_path
from worktrees.push_guard import install as guard_pushes
from worktrees.repo import main_head, main_root, resolve_commit

CHECKOUTS_AT_ONCE = 2
_UNUSUAL_CONFIG = ("worktree.userelativepaths", "extensions.worktreeconfig",
                   "core.sparsecheckout", "core.hookspath", "extensions.relativeworktrees")


def create_worktrees(repo_root: Path | str, wanted: Sequence[tuple[str, str | None]],
                     progress: Callable[[int], None] | None = None) -> list[WorktreeInfo]:
    """`create_worktree(root, name, base)` for each (name, base) of `wanted`, in order;
    `progress(k)` after each is ready. Fast for new sessions of a plain repository."""
    root = main_root(repo_root)
    main_head(root)
    results: dict[str, WorktreeInfo] = {}
    fast = [(name, base) for name, base in wanted if _fresh(root, name)] \
        if _plain(root) else []
    if fast:
        _exclude_room_dir(root)
        with worktrees_locked(root):
            made = _make_admin(root, fast)
        guard_pushes(root, [info.path for info in made])
        _check_out(root, made, lambda info: _ready(results, info, progress))
    for name, base in wanted:
        if name not in results:
            results[name] = create_worktree(root, name, base)
            if progress:
                progress(len(results))
    return [results[name] for name, _ in wanted]


def _ready(results: dict[str, WorktreeInfo], info: WorktreeInfo,
           progress: Callable[[int], None] | None) -> None:
    results[info.name] = info
    if progress:
        progress(len(results))


def _plain(root: Path) -> bool:
    """No setting or hook that makes `git worktree add` do more than the fast path does,
    and a committer identity for the reflogs it writes (`git worktree add` works without
    one, so a machine with no git identity takes that path, as before the fast one)."""
    if run_git(root, "var", "GIT_COMMITTER_IDENT", ok=(0, 128)).status != 0:
        return False
    config = run_git(root, "config", "--list", ok=(0, 1)).stdout.lower()
    keys = {line.partition("=")[0] for line in config.splitlines()}
    if not (root / ".git" / "config.worktree").exists():
        keys.discard("extensions.worktreeconfig")  # as the push guard sets it: no copy to make
    hooks = root / ".git" / "hooks"
    return not keys & set(_UNUSUAL_CONFIG) and not (hooks / "post-checkout").exists() \
        and (root / ".git").is_dir()


def _fresh(root: Path, name: str) -> bool:
    """Nothing of `name` exists yet: no directory, admin directory or branch."""
    branch = check_branch_allowed(branch_for(name))
    return not worktree_path(root, name).exists() \
        and not (root / ".git" / "worktrees" / name).exists() \
        and not (root / ".git" / "refs" / "heads" / branch).exists() \
        and not (root / ".git" / "logs" / "refs" / "heads" / branch).exists()


def _make_admin(root: Path, fast: list[tuple[str, str | None]]) -> list[WorktreeInfo]:
    """Branches (one transaction) and admin files of every fast worktree, each locked."""
    bases: dict[str | None, str] = {}
    infos = []
    for name, base in fast:
        if base not in bases:
            bases[base] = resolve_commit(root, base or "HEAD")
        infos.append(WorktreeInfo(name, worktree_path(root, name), branch_for(name),
                                  bases[base]))
    packed = {line.split(" ", 1)[1] for line in _packed(root)}
    if any(f"refs/heads/{info.branch}" in packed for info in infos):
        raise WorktreeError("a session's branch exists already; run bullpen up again")
    per_base: dict[str, list[str]] = {}
    for info in infos:
        per_base.setdefault(info.base_commit, []).append(
            f"create refs/heads/{info.branch} {info.base_commit}")
    for base_commit, lines in per_base.items():  # git branch's own reflog message
        result = run_git(root, "update-ref", "--create-reflog", "-m",
                         f"branch: Created from {base_commit}", "--stdin",
                         stdin="start\n" + "\n".join(lines) + "\nprepare\ncommit\n",
                         ok=(0, 128))
        if result.status != 0:
            raise WorktreeError("could not create the sessions' branches:"
                                f" {first_line(result.stderr)}")
    record_bases(root, [(info.branch, info.base_commit) for info in infos])
    ident = git_out(root, "var", "GIT_COMMITTER_IDENT").rsplit(" ", 2)[0]
    common = (root / ".git").resolve()
    for info in infos:
        admin = common / "worktrees" / info.name
        admin.mkdir(parents=True)
        (admin / "locked").write_text(INITIALIZING)
        info.path.mkdir(parents=True)
        real = info.path.resolve()
        (admin / "gitdir").write_text(f"{real}/.git\n")
        (real / ".git").write_text(f"gitdir: {admin}\n")
        (admin / "commondir").write_text("../..\n")
        (admin / "HEAD").write_text(f"ref: refs/heads/{info.branch}\n")
        (admin / "logs").mkdir()
        stamp = f"{int(time.time())} {time.strftime('%z')}"
        (admin / "logs" / "HEAD").write_text(
            f"{'0' * 40} {info.base_commit} {ident} {stamp}\n")
    return infos


def _packed(root: Path) -> list[str]:
    try:
        lines = (root / ".git" / "packed-refs").read_text().splitlines()
    except OSError:
        return []
    return [line for line in lines if line[:1] not in ("#", "^") and " " in line]


def _check_out(root: Path, infos: list[WorktreeInfo],
               done: Callable[[WorktreeInfo], None]) -> None:
    includes = included_files(root)

    def one(info: WorktreeInfo) -> WorktreeInfo:
        check_out(info.path)
        if includes:
            copy_included(root, info.path)
        admin = Path((info.path / ".git").read_text().removeprefix("gitdir: ").strip())
        (admin / "locked").unlink(missing_ok=True)
        return info

    with ThreadPoolExecutor(max_workers=min(CHECKOUTS_AT_ONCE, os.cpu_count() or 1)) as pool:
        for info in pool.map(one, infos):
            done(info)
