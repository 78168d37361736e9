"""Running one git command through GitPython's command wrapper.

A `git.Git` is a thin subprocess wrapper: unlike `git.Repo` it opens no object database and
starts no long-lived `cat-file` processes, which keeps `bullpen ls` cheap.
"""

from __future__ import annotations

import contextlib
import tempfile
from dataclasses import dataclass
from pathlib import Path

import git

from worktrees.errors import WorktreeError


@dataclass(frozen=True)
class GitResult:
    """Exit status and output of one git command."""

    status: int
    stdout: str
    stderr: str


def run_git(cwd: Path | str, *args: str, ok: tuple[int, ...] = (0,),
            stdin: str | None = None, env: dict[str, str] | None = None) -> GitResult:
    """Run `git ARGS` in `cwd` (feeding it `stdin`, with `env` added to the environment);
    raise WorktreeError unless its exit status is in `ok`."""
    with contextlib.ExitStack() as stack:
        source = None
        if stdin is not None:
            # GitPython takes standard input only as a file, so spool it through one.
            source = stack.enter_context(tempfile.TemporaryFile())
            source.write(stdin.encode("utf-8", "surrogateescape"))
            source.seek(0)
        status, stdout, stderr = git.Git(str(cwd)).execute(
            ["git", *args],
            istream=source,
            with_extended_output=True,
            with_exceptions=False,
            strip_newline_in_stdout=False,
            env=env,
        )
    if status not in ok:
        said = first_line(stderr or stdout)
        if said == NO_MESSAGE:
            said = f"{said} (exit status {status})"  # the status is then all there is
        raise WorktreeError(f"git {args[0]} failed in {cwd}: {said}")
    return GitResult(status, stdout, stderr)


NO_MESSAGE = "no message from git"


def git_out(cwd: Path | str, *args: str) -> str:
    """Stdout of a git command that must succeed, without its trailing newline."""
    return run_git(cwd, *args).stdout.rstrip("\n")


def first_line(text: str) -> str:
    """The first meaningful line of git's message, without its `fatal:`/`error:` prefix."""
    for line in text.splitlines():
        line = line.strip()
        for prefix in ("fatal: ", "error: "):
            line = line.removeprefix(prefix)
        if line and not line.startswith("hint:"):
            return line
    return NO_MESSAGE


def split_z(output: str) -> list[str]:
    """Split NUL-separated (`-z`) output into its non-empty fields."""
    return [field for field in output.split("\0") if field]
