"""Work in a worktree that `git status` does not show, and that removal would destroy.

- ignored files that are not regenerable build output (`.env*` and whatever the
  repository's `.worktreeinclude` lists are always precious: secrets and local config);
- edits hidden by `git update-index --skip-worktree` or `--assume-unchanged`
  (`git ls-files -v` flags), whose content differs from the index;
- stashes made on the session's branch (the stash list is shared by every worktree,
  but a stash of this branch's work is meant for it).
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path, PurePosixPath

from worktrees.gitcmd import run_git, split_z

WORKTREE_INCLUDE = ".worktreeinclude"
# Names of ignored directories and files that a build, an install or a test run makes
# again: losing them costs time, not work.
REGENERABLE_DIRS = frozenset({
    "__pycache__", "node_modules", ".venv", "venv", ".tox", ".nox", ".pytest_cache",
    ".mypy_cache", ".ruff_cache", ".hypothesis", "build", "dist", "target", ".gradle",
    ".next", ".nuxt", ".parcel-cache", ".cache", "htmlcov", "coverage", ".turbo",
    ".eggs", "out",
})
REGENERABLE_FILES = ("*.pyc", "*.pyo", "*.o", "*.obj", "*.class", "*.so", "*.a",
                     ".coverage", ".coverage.*", ".DS_Store", "*.egg-info", "*.log")
SHOWN = 5


def precious_ignored(path: Path, repo_root: Path) -> list[str]:
    """Ignored files and directories in the worktree at `path` that are not regenerable."""
    always = _always_precious(path, repo_root)
    listed = split_z(run_git(path, "ls-files", "-z", "--others", "--ignored",
                             "--exclude-standard", "--directory").stdout)
    # A directory is listed with its entries when only some of them are ignored.
    outer = [entry for entry in listed
             if not any(other != entry and other.startswith(entry) for other in listed)]
    found = [entry for entry in outer if not _regenerable(entry.rstrip("/"))]
    return sorted(set(found) | set(always))


def _always_precious(path: Path, repo_root: Path) -> list[str]:
    """Untracked files named `.env*` or listed by a `.worktreeinclude` (the worktree's,
    else the main checkout's): secrets and local set-up, wherever they sit."""
    args = ["ls-files", "-z", "--others", "--ignored", "--exclude=.env*"]
    for root in (path, repo_root):
        include = root / WORKTREE_INCLUDE
        if include.is_file():
            args.append(f"--exclude-from={include}")
            break
    return split_z(run_git(path, *args).stdout)


def _regenerable(rel: str) -> bool:
    parts = PurePosixPath(rel).parts
    name = parts[-1] if parts else rel
    if any(part in REGENERABLE_DIRS for part in parts):
        return True
    return any(fnmatch.fnmatch(name, pattern) for pattern in REGENERABLE_FILES)


def hidden_edits(path: Path) -> list[str]:
    """Files flagged skip-worktree or assume-unchanged whose content differs from the
    index: git hides these edits from status and diff, and removal would drop them."""
    flagged = []
    for entry in split_z(run_git(path, "ls-files", "-v", "-z").stdout):
        tag, _, rel = entry.partition(" ")
        if tag == "S" or tag.islower():
            flagged.append(rel)
    if not flagged:
        return []
    present = [rel for rel in flagged if os.path.lexists(path / rel)]
    if not present:
        return []
    staged = {}
    for entry in split_z(run_git(path, "ls-files", "-s", "-z", "--",
                                             *(f":(literal){rel}" for rel in present)).stdout):
        meta, _, rel = entry.partition("\t")
        staged[rel] = meta.split()[1]
    actual = run_git(path, "hash-object", "--no-filters", "--stdin-paths",
                     stdin="\n".join(present) + "\n").stdout.split()
    return [rel for rel, sha in zip(present, actual, strict=False) if staged.get(rel) != sha]


def stashes_of(repo_root: Path, branch: str) -> list[str]:
    """The stash entries (`stash@{n}`) made while `branch` was checked out."""
    listed = run_git(repo_root, "stash", "list", "-z", "--format=%gd%x01%gs", ok=(0, 128))
    made_on = re.compile(rf"^(?:WIP on|On) {re.escape(branch)}:")
    found = []
    for entry in split_z(listed.stdout):
        ref, _, subject = entry.partition("\x01")
        if made_on.match(subject):
            found.append(ref)
    return found


def shown(items: list[str]) -> str:
    """Up to SHOWN items, then how many more."""
    more = f" and {len(items) - SHOWN} more" if len(items) > SHOWN else ""
    return ", ".join(items[:SHOWN]) + more
