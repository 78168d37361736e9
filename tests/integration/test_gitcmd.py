"""Running git without GitPython (issue 34): run_git as GitPython's wrapper ran it, and
run_git_all, the same for many worktrees at once, answering each in its order."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import git
from worktrees.errors import WorktreeError
from worktrees.gitcmd import AT_ONCE, run_git, run_git_all
from worktrees.status import changed_files


def test_each_answer_is_its_own_calls_in_order_past_one_batch(tmp_path: Path) -> None:
    repos = []
    for index in range(AT_ONCE + 3):
        repo = tmp_path / f"r{index}"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        for name in range(index % 4):
            (repo / f"f{name}.txt").write_text("x\n")
        repos.append(repo)
    tops = run_git_all([(repo, ("rev-parse", "--show-toplevel")) for repo in repos])
    assert [Path(result.stdout.strip()) for result in tops] == [r.resolve() for r in repos]
    assert [len(files) for files in changed_files(repos)] == [i % 4 for i in range(len(repos))]


def test_a_failure_is_one_worktree_error_naming_the_command(tmp_path: Path) -> None:
    with pytest.raises(WorktreeError, match="git rev-parse failed in .*: not a git repository"):
        run_git_all([(tmp_path, ("rev-parse", "HEAD"))])
    with pytest.raises(WorktreeError, match="no such directory"):
        run_git(tmp_path / "gone", "status")


def test_stdin_is_fed_and_output_kept_as_git_wrote_it(git_repo: Path) -> None:
    text = "line\n\xe9t\xe9\n"
    fed = run_git(git_repo, "hash-object", "--stdin", stdin=text)
    assert fed.stdout == subprocess.run(["git", "hash-object", "--stdin"], cwd=git_repo,
                                        input=text.encode(), capture_output=True,
                                        check=True).stdout.decode()
    assert fed.stdout.endswith("\n")  # stdout keeps its newline, as before
    said = run_git(git_repo, "rev-parse", "--verify", "nope", ok=(128,))
    assert said.stderr.startswith("fatal:") and not said.stderr.endswith("\n")
