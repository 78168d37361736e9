"""What a session changed: its diff since a base, and commit summaries for alerts and pings."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from worktrees.base import recorded_base
from worktrees.gitcmd import git_out, run_git, split_z
from worktrees.models import CommitInfo
from worktrees.repo import main_head, resolve_commit

# One record per commit: \x1e starts it, \x1f separates fields, the body ends at the last \x1f
# and the names git prints with --name-only follow, NUL-separated.
_LOG_FORMAT = "--format=%x1e%H%x1f%h%x1f%an%x1f%B%x1f"
_DIFF_FLAGS = ("--no-color", "--no-ext-diff")  # plain text whatever the user's config says


def branch_head(repo_root: Path | str, branch: str) -> str | None:
    """The commit `branch` points at, or None if there is no such local branch."""
    result = run_git(repo_root, "rev-parse", "--verify", "--quiet",
                     f"refs/heads/{branch}^{{commit}}", ok=(0, 1, 128))
    return result.stdout.strip() if result.status == 0 else None


def commit_info(repo_path: Path | str, sha: str) -> CommitInfo:
    """Summary of one commit: sha, short sha, first message line, author and files touched."""
    return _log(repo_path, "-1", resolve_commit(repo_path, sha))[0]


def commits_between(repo_root: Path | str, old_sha: str, new_sha: str) -> list[CommitInfo]:
    """Commits reachable from `new_sha` but not from `old_sha`, oldest first."""
    old, new = resolve_commit(repo_root, old_sha), resolve_commit(repo_root, new_sha)
    return _log(repo_root, "--reverse", f"{old}..{new}")


def session_diff(worktree_path: Path | str, base: str | None = None,
                 paths: Sequence[str] = ()) -> str:
    """Everything the worktree changed since `base`: commits, staged and unstaged edits, and
    untracked files shown as new-file diffs.

    `base` defaults to the base recorded when the branch was created, else the main
    checkout's HEAD. `paths` (repo-relative) limits the diff.
    """
    cwd = Path(worktree_path)
    base_sha = resolve_commit(cwd, base) if base else _default_base(cwd)
    # The worktree's own root, so pathspecs and untracked names are repo-relative.
    top = git_out(cwd, "rev-parse", "--show-toplevel")
    parts = [run_git(top, "diff", *_DIFF_FLAGS, base_sha, "--", *paths).stdout]
    untracked = split_z(run_git(top, "ls-files", "-z", "--others", "--exclude-standard",
                                "--", *paths).stdout)
    for name in untracked:
        # --no-index exits 1 when the files differ, which they always do here.
        parts.append(run_git(top, "diff", *_DIFF_FLAGS, "--no-index", "--", "/dev/null", name,
                             ok=(0, 1)).stdout)
    return "".join(parts)


def _default_base(cwd: Path) -> str:
    branch = run_git(cwd, "symbolic-ref", "--quiet", "--short", "HEAD", ok=(0, 1)).stdout.strip()
    return (recorded_base(cwd, branch) if branch else None) or main_head(cwd)


def _log(cwd: Path | str, *args: str) -> list[CommitInfo]:
    output = run_git(cwd, "log", "-z", "--name-only", "--diff-merges=first-parent",
                     _LOG_FORMAT, *args).stdout
    commits = []
    for record in output.split("\x1e")[1:]:
        sha, short, author, body, names = record.split("\x1f", 4)
        # git separates the formatted header from the file names with "\0\n".
        files = split_z(names.removeprefix("\0").removeprefix("\n"))
        first_line = body.strip().splitlines()[0] if body.strip() else ""
        commits.append(CommitInfo(sha, short, first_line, author, tuple(files)))
    return commits
