"""Copying gitignored files named in `.worktreeinclude` (e.g. `.env`) into a new worktree."""

from __future__ import annotations

import shutil
from pathlib import Path

from worktrees.gitcmd import run_git, split_z

INCLUDE_FILE = ".worktreeinclude"


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
    result = run_git(root, "check-ignore", "-z", "--stdin", ok=(0, 1),
                     stdin="\0".join(candidates) + "\0")
    return sorted(set(split_z(result.stdout)) & set(candidates))


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
