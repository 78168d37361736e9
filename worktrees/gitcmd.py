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
from collections.abc import Sequence
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
    _check_cwd(cwd, args)
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True,
        input=None if stdin is None else stdin.encode("utf-8", "surrogateescape"),
        stdin=subprocess.DEVNULL if stdin is None else None, env=_env(env), check=False)
    return _result(cwd, args, done.returncode, done.stdout, done.stderr, ok)


AT_ONCE = 8  # git processes run_git_all keeps running together


def run_git_all(calls: Sequence[tuple[Path | str, tuple[str, ...]]],
                ok: tuple[int, ...] = (0,)) -> list[GitResult]:
    """Each (cwd, args) of `calls` run as by run_git, AT_ONCE at a time, the results in
    their order: `bullpen ls` asks the same of every session's worktree."""
    results: list[GitResult] = []
    for first in range(0, len(calls), AT_ONCE):
        batch = calls[first:first + AT_ONCE]
        for cwd, args in batch:
            _check_cwd(cwd, args)
        started = [(cwd, args, subprocess.Popen(
            ["git", *args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=_env(None))) for cwd, args in batch]
        for cwd, args, process in started:  # each child writes its own pipes: no deadlock
            stdout, stderr = process.communicate()
            results.append(_result(cwd, args, process.returncode, stdout, stderr, ok))
    return results


def _check_cwd(cwd: Path | str, args: Sequence[str]) -> None:
    if not os.path.isdir(cwd):  # git would say nothing clearer; subprocess would raise
        raise WorktreeError(f"git {args[0]} failed in {cwd}: no such directory")


def _env(extra: dict[str, str] | None) -> dict[str, str]:
    return {**os.environ, "LANGUAGE": "C", "LC_ALL": "C", **(extra or {})}


def _result(cwd: Path | str, args: Sequence[str], status: int, out: bytes, err: bytes,
            ok: tuple[int, ...]) -> GitResult:
    stdout = out.decode("utf-8", "surrogateescape")
    stderr = err.decode("utf-8", "surrogateescape").removesuffix("\n")
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
