"""Predicting merges without touching any worktree or index (the conflict radar's git side).

A checkout becomes one commit: its HEAD, or — when it has uncommitted edits — a
throw-away commit of HEAD plus those edits, built through a *temporary* index file
(`GIT_INDEX_FILE`, a copy of the checkout's index so unchanged files are not re-read);
the checkout's own index and files are never written. Two such commits are merged by
`git merge-tree --write-tree`, which writes only objects. Conflicting line ranges come
from each side's zero-context diff against the merge base: the hunks that overlap or
touch are the ones git could not merge.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from worktrees.errors import WorktreeError
from worktrees.gitcmd import first_line, git_out, run_git, split_z

# Who the throw-away snapshot commits are by: never the user's identity, and no config needed.
_IDENTITY = {"GIT_AUTHOR_NAME": "bullpen radar", "GIT_AUTHOR_EMAIL": "radar@bullpen.invalid",
             "GIT_COMMITTER_NAME": "bullpen radar",
             "GIT_COMMITTER_EMAIL": "radar@bullpen.invalid",
             # A fixed date: the same edits on the same HEAD make the same commit (cacheable).
             "GIT_AUTHOR_DATE": "@0 +0000", "GIT_COMMITTER_DATE": "@0 +0000"}
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)
_DIFF_FLAGS = ("--no-color", "--no-ext-diff", "--no-renames", "-U0")
_MERGE_FLAGS = ("--write-tree", "--name-only", "--no-messages", "-z",
                "--allow-unrelated-histories")

LineRange = tuple[int, int]  # first and last line, 1-based, in that side's version


@dataclass(frozen=True)
class Snapshot:
    """A checkout as one commit: `commit` is `head` itself when nothing is uncommitted."""

    commit: str
    head: str
    dirty: bool
    tree: str = ""  # the commit's tree
    head_tree: str = ""


@dataclass(frozen=True)
class FileConflict:
    """One file two sides cannot merge, with the lines each side changed there."""

    path: str
    ours: tuple[LineRange, ...]
    theirs: tuple[LineRange, ...]


@dataclass(frozen=True)
class MergePrediction:
    clean: bool
    base: str | None  # the merge base of a conflict (None: clean, or no common history)
    files: tuple[FileConflict, ...] = ()


def snapshot(worktree: Path | str, keep: Path | None = None,
             paths: Sequence[str] | None = None) -> Snapshot:
    """The checkout at `worktree` as a commit, uncommitted and untracked edits included
    (ignored files are not). Writes objects only; the index and files stay as they are.

    `keep` is an index file of the caller's own, kept between calls: started as a copy of
    the checkout's index, it keeps git's record of which files are unchanged, so a large
    checkout is not re-read each time. With `paths` (those changed since the last call on
    the same HEAD) only they are looked at; without, every file is.
    """
    cwd = Path(worktree)
    index, head, head_tree = git_out(cwd, "rev-parse", "--path-format=absolute", "--git-path",
                                     "index", "HEAD", "HEAD^{tree}").splitlines()
    scratch = None if keep is not None else tempfile.mkdtemp(prefix="bullpen-radar-")
    try:
        own = Path(keep) if keep is not None else Path(str(scratch), "index")
        env = {"GIT_INDEX_FILE": str(own)}
        if not own.exists():
            paths = None
            own.parent.mkdir(parents=True, exist_ok=True)
            if os.path.exists(index):
                shutil.copyfile(index, own)  # git renames a new index in: a copy is whole
            else:
                run_git(cwd, "read-tree", head, env=env)
        spec = [f":(literal){path}" for path in paths] if paths else ["."]
        if paths is None or paths:
            added = run_git(cwd, "add", "--all", "--ignore-errors", "--", *spec, env=env,
                            ok=(0, 1, 128))
            if added.status == 128:  # a path gone from disk and index alike: look at all
                run_git(cwd, "add", "--all", "--ignore-errors", ".", env=env, ok=(0, 1))
        tree = run_git(cwd, "write-tree", env=env).stdout.strip()
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    if tree == head_tree:
        return Snapshot(head, head, False, tree, head_tree)
    commit = run_git(cwd, "commit-tree", tree, "-p", head, "-m", "bullpen radar snapshot",
                     env=_IDENTITY).stdout.strip()
    return Snapshot(commit, head, True, tree, head_tree)


def merge_base(repo: Path | str, ours: str, theirs: str) -> str | None:
    """The best common ancestor of two commits, or None without common history."""
    result = run_git(repo, "merge-base", ours, theirs, ok=(0, 1))
    return result.stdout.strip() or None


def changed_paths(repo: Path | str, since: str | None, commit: str) -> frozenset[str]:
    """Paths that differ between `since` and `commit` (every path when `since` is None)."""
    if since is None:
        return frozenset(split_z(run_git(repo, "ls-tree", "-r", "-z", "--name-only",
                                         commit).stdout))
    return frozenset(split_z(run_git(repo, "diff", "--name-only", "--no-renames", "-z",
                                     since, commit).stdout))


def predict_merge(repo: Path | str, ours: str, theirs: str) -> MergePrediction:
    """Would merging `theirs` into `ours` conflict, and where? Nothing but objects is written."""
    result = run_git(repo, "merge-tree", *_MERGE_FLAGS, ours, theirs, ok=(0, 1, 128))
    if result.status not in (0, 1):
        raise WorktreeError(f"git merge-tree failed: {first_line(result.stderr)}")
    if result.status == 0:
        return MergePrediction(True, None)  # the base is only needed to say where it clashes
    paths = sorted(set(split_z(result.stdout)[1:]))  # the first field is the tree
    return _conflicted(repo, ours, theirs, paths)


def predict_merges(repo: Path | str,
                   pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], MergePrediction]:
    """`predict_merge` of each pair, all in one `git merge-tree --stdin` process (git
    merges them one after the other in memory: no process start, repository open or
    object lookup cache lost per pair). A git without `--stdin`, or a batch git could
    not finish, falls back to one process per pair."""
    wanted = list(dict.fromkeys(pairs))
    if len(wanted) < 2:
        return {pair: predict_merge(repo, *pair) for pair in wanted}
    result = run_git(repo, "merge-tree", "--stdin", *_MERGE_FLAGS, ok=(0, 1, 128, 129),
                     stdin="".join(f"{ours} {theirs}\n" for ours, theirs in wanted))
    found: dict[tuple[str, str], MergePrediction] = {}
    fields = result.stdout.split("\0") if result.status == 0 else []
    at = 0
    for pair in wanted:
        # Each merge: its status (1 clean, 0 conflicted), its tree, each conflicted path,
        # then an empty field.
        if at + 2 > len(fields) or fields[at] not in ("0", "1"):
            break
        status, at = fields[at], at + 2
        paths = []
        while at < len(fields) and fields[at]:
            paths.append(fields[at])
            at += 1
        at += 1
        found[pair] = (MergePrediction(True, None) if status == "1"
                       else _conflicted(repo, *pair, sorted(set(paths))))
    for pair in wanted:
        if pair not in found:
            found[pair] = predict_merge(repo, *pair)
    return found


def _conflicted(repo: Path | str, ours: str, theirs: str,
                paths: list[str]) -> MergePrediction:
    base = merge_base(repo, ours, theirs)
    return MergePrediction(False, base, tuple(
        _file_conflict(repo, base, ours, theirs, path) for path in paths))


def commits_touching(repo: Path | str, since: str | None, head: str,
                     paths: tuple[str, ...]) -> tuple[str, ...]:
    """Short ids of the commits after `since` up to `head` that touched `paths`, oldest first."""
    span = f"{since}..{head}" if since else head
    output = run_git(repo, "log", "--reverse", "--format=%h", span, "--", *paths).stdout
    return tuple(output.split())


def _file_conflict(repo: Path | str, base: str | None, ours: str, theirs: str,
                   path: str) -> FileConflict:
    mine, other = _hunks(repo, base, ours, path), _hunks(repo, base, theirs, path)
    clashing_mine = [side for span, side in mine if any(_touch(span, o) for o, _ in other)]
    clashing_other = [side for span, side in other if any(_touch(span, m) for m, _ in mine)]
    if not clashing_mine and not clashing_other:  # add/add, modify/delete, binary...
        clashing_mine, clashing_other = [s for _, s in mine], [s for _, s in other]
    return FileConflict(path, tuple(clashing_mine), tuple(clashing_other))


def _hunks(repo: Path | str, base: str | None, side: str,
           path: str) -> list[tuple[tuple[float, float], LineRange]]:
    """Each hunk of `side` against `base` in `path`: (its span in the base, its lines here)."""
    against = base or "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # the empty tree
    output = run_git(repo, "diff", *_DIFF_FLAGS, against, side, "--", path).stdout
    hunks = []
    for match in _HUNK.finditer(output):
        old, old_n = int(match[1]), int(match[2] if match[2] is not None else 1)
        new, new_n = int(match[3]), int(match[4] if match[4] is not None else 1)
        span = (old, old + old_n - 1) if old_n else (old + 0.5, old + 0.5)
        lines = (new, new + new_n - 1) if new_n else (max(new, 1), max(new, 1))
        hunks.append((span, lines))
    return hunks


def _touch(one: tuple[float, float], other: tuple[float, float]) -> bool:
    """Overlapping or adjacent base spans: git's merge cannot take both."""
    return one[0] <= other[1] + 1 and other[0] <= one[1] + 1
