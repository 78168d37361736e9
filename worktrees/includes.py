"""Copying gitignored files named in `.worktreeinclude` (e.g. `.env`) into a new worktree."""

from __future__ import annotations

import shutil
from pathlib import Path

from worktrees.gitcmd import run_git, split_z

INCLUDE_FILE = ".worktreeinclude"
_BATCH = 200  # paths per check-ignore call, well under any argv limit


def included_files(root: Path) -> list[str]:
    """Repo-relative files in `root` that match `.worktreeinclude` AND are ignored by git.

    Tracked files already come with the checkout, and untracked files that are not ignored
    are work in progress, not local setup, so neither is copied.
    """
    patterns = root / INCLUDE_FILE
    if not patterns.is_file():
        return []
    # Untracked files matching the include patterns (git reads them with gitignore rules)...
    candidates = split_z(run_git(
        root, "ls-files", "-z", "--others", "--ignored", f"--exclude-from={patterns}",
    ).stdout)
    if not candidates:
        return []
    # ...kept only if the repository's own ignore rules ignore them too.
    ignored: set[str] = set()
    for start in range(0, len(candidates), _BATCH):
        batch = candidates[start:start + _BATCH]
        result = run_git(root, "check-ignore", "-z", "--", *batch, ok=(0, 1))
        ignored.update(split_z(result.stdout))
    return sorted(ignored & set(candidates))


def copy_included(root: Path, dest: Path) -> tuple[str, ...]:
    """Copy the included files from `root` into `dest`, never overwriting; return those copied."""
    copied = []
    for rel in included_files(root):
        source, target = root / rel, dest / rel
        if target.exists() or target.is_symlink():
            continue  # the session may have edited its copy; keep it
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
        copied.append(rel)
    return tuple(copied)
