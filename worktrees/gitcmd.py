"""Running one git command: a plain subprocess, as GitPython's command wrapper ran it.

Not `git.Git`: importing GitPython costs a CLI call more than the rest of `bullpen ls`
(83 ms of 232, issue 34), and running git needs none of it. The process is started as
GitPython's `Git.execute` started it (LANGUAGE=C and LC_ALL=C, so messages are the
English ones `first_line` readers expect; stdin from /dev/null unless fed; output
decoded as UTF-8 with surrogate escapes; stderr without its last newline), so callers
see the same results. GitPython stays for the object database (repo, tree_edit, clone).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

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
    if not os.path.isdir(cwd):  # git would say nothing clearer; subprocess would raise
        raise WorktreeError(f"git {args[0]} failed in {cwd}: no such directory")
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True,
        input=None if stdin is None else stdin.encode("utf-8", "surrogateescape"),
        stdin=subprocess.DEVNULL if stdin is None else None,
        env={**os.environ, "LANGUAGE": "C", "LC_ALL": "C", **(env or {})}, check=False)
    status = done.returncode
    stdout = done.stdout.decode("utf-8", "surrogateescape")
    stderr = done.stderr.decode("utf-8", "surrogateescape").removesuffix("\n")
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
