"""Fetching a repository someone shares (a team plan): a clone and its commit.

Through GitPython's `Repo.clone_from`, so any URL git takes works (`https://`, `ssh://`,
`git@host:path`, `file://`); git's own message names what went wrong.
"""

from __future__ import annotations

from pathlib import Path

import git

from worktrees.errors import WorktreeError
from worktrees.gitcmd import first_line

URL_PREFIXES = ("http://", "https://", "ssh://", "git://", "file://", "git@")


def looks_like_url(text: str) -> bool:
    """Whether `text` names a repository to clone rather than a local directory."""
    return text.startswith(URL_PREFIXES) or (":" in text.split("/")[0] and "@" in text)


def clone(url: str, target: Path) -> str:
    """Clone `url` into `target` (which must not exist); its HEAD commit."""
    try:
        repo = git.Repo.clone_from(url, str(target))
    except git.GitCommandError as error:
        said = first_line(str(error.stderr or "")) or str(error)
        raise WorktreeError(f"cannot fetch {url}: {said}") from None
    try:
        return repo.head.commit.hexsha
    except ValueError:
        raise WorktreeError(f"{url} has no commits yet; commit the plan first") from None
    finally:
        repo.close()


def head_commit(directory: Path) -> str | None:
    """The commit a local checkout is at (`+changes` when its files differ from it), or
    None when it is no git checkout."""
    try:
        repo = git.Repo(str(directory))
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    try:
        if repo.working_tree_dir is None or Path(repo.working_tree_dir).resolve() \
                != directory.resolve():
            return None  # a folder inside some other repository
        sha = repo.head.commit.hexsha
        return sha + ("+changes" if repo.is_dirty(untracked_files=True) else "")
    except ValueError:
        return None
    finally:
        repo.close()
