"""Finding the main checkout, listing its worktrees and resolving refs."""

from __future__ import annotations

from pathlib import Path

from worktrees.errors import BadWorktreeInput
from worktrees.gitcmd import run_git
from worktrees.models import RegisteredWorktree

TYPE_CHECKING = False  # not typing's: `bullpen ls` reads worktrees and pays for no import
if TYPE_CHECKING:
    import git

# The main worktree's HEAD, readable from any linked worktree (git >= 2.23).
MAIN_HEAD = "main-worktree/HEAD"


def list_worktrees(path: Path | str) -> list[RegisteredWorktree]:
    """Every worktree of the repository containing `path`, the main one first."""
    path = Path(path)
    if not path.is_dir():
        raise BadWorktreeInput(f"{path} is not a directory; pass a path inside a git repository")
    result = run_git(path, "worktree", "list", "--porcelain", "-z", ok=(0, 128))
    if result.status != 0:
        raise BadWorktreeInput(f"{path} is not a git repository; run git init")
    # Records are NUL-separated attribute lines, each record ended by an empty field.
    worktrees = []
    for record in result.stdout.split("\0\0"):
        attrs = dict(line.partition(" ")[::2] for line in record.split("\0") if line)
        if "worktree" not in attrs:
            continue
        if "bare" in attrs:
            raise BadWorktreeInput(f"{path} is in a bare repository; bullpen needs a working tree")
        branch = attrs.get("branch")
        worktrees.append(RegisteredWorktree(
            path=Path(attrs["worktree"]).resolve(),
            head=attrs.get("HEAD"),
            branch=branch.removeprefix("refs/heads/") if branch else None,
            prunable="prunable" in attrs,
        ))
    return worktrees


def main_root(path: Path | str) -> Path:
    """The main worktree of the repository containing `path`, even from a linked worktree."""
    path = Path(path)
    if not path.is_dir():
        raise BadWorktreeInput(f"{path} is not a directory; pass a path inside a git repository")
    # One rev-parse rather than `worktree list`, which fails while another process is
    # half-way through adding a worktree. Like git itself, the main worktree is the
    # directory holding the common `.git`.
    result = run_git(path, "rev-parse", "--path-format=absolute", "--git-common-dir",
                     ok=(0, 128))
    if result.status != 0:
        raise BadWorktreeInput(f"{path} is not a git repository; run git init")
    common = Path(result.stdout.strip()).resolve()
    if common.name != ".git":
        raise BadWorktreeInput(f"{path} is in a bare repository; bullpen needs a working tree")
    return common.parent


def open_repo(path: Path | str) -> git.Repo:
    """Open the main checkout of the repository containing `path` (which must have a commit)."""
    import git  # GitPython: here, for the few verbs that need a Repo (issue 34)

    root = main_root(path)
    repo = git.Repo(root)
    if not repo.head.is_valid():
        repo.close()
        raise BadWorktreeInput(f"{root} has no commit yet; make a first commit")
    return repo


def resolve_commit(cwd: Path | str, ref: str) -> str:
    """The full sha of the commit `ref` names, as seen from `cwd`; BadWorktreeInput if unknown."""
    if ref.startswith("-"):  # never let a ref be read as an option
        raise BadWorktreeInput(f"unknown ref {ref!r}; pass a branch, tag or commit")
    result = run_git(cwd, "rev-parse", "--verify", "--quiet", "--end-of-options",
                     f"{ref}^{{commit}}", ok=(0, 1, 128))
    if result.status != 0:
        raise BadWorktreeInput(f"unknown ref {ref!r} in {cwd}; pass a branch, tag or commit")
    return result.stdout.strip()


def main_head(cwd: Path | str) -> str:
    """The commit the main checkout's HEAD points at (from the main or any linked worktree)."""
    result = run_git(cwd, "rev-parse", "--verify", "--quiet", f"{MAIN_HEAD}^{{commit}}",
                     ok=(0, 1, 128))
    if result.status != 0:
        raise BadWorktreeInput(f"the main checkout of {cwd} has no commit yet; "
                               "make a first commit")
    return result.stdout.strip()
