"""The floor's two layers, for real: `bullpen hook claude` refuses each of the issue's 19
forced-push forms and audits it; and with that layer skipped, each form run for real in
a session's worktree leaves the bare remote's `main` where it was, because the
worktree's pre-push hook refuses it (from a script, a Makefile, a Python subprocess
too), while the repository's own hooks keep running there."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from board import audit, sessions
from board.room import Room
from tests.cli_runner import identity, run_cli
from tests.conftest import commit_file, git
from tests.floor_variants import MOVED_MAIN
from tests.waiting import wait_until
from workers.agents import command_policy
from workers.surfaces import hooks
from worktrees.create import create_worktree
from worktrees.push_guard import guarded


@pytest.fixture
def diverged(git_repo: Path, tmp_path: Path) -> tuple[Path, Path, str]:
    """A bare remote whose `main` is a commit the session's worktree does not have, so
    only a forced push can move it: (worktree, remote, remote main's sha)."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(git_repo), str(remote))
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(remote), str(other))
    git(other, "-c", "user.name=o", "-c", "user.email=o@x", "commit", "-q",
        "--allow-empty", "-m", "theirs")
    git(other, "push", "-q", "origin", "main")
    git(git_repo, "remote", "add", "origin", str(remote))
    worktree = create_worktree(git_repo, "alice").path
    commit_file(worktree, "mine.txt", "mine\n", "mine")
    return worktree, remote, git(remote, "rev-parse", "main").strip()


def test_the_hook_process_refuses_and_audits_each_of_the_issues_forms(
        room: Room, git_repo: Path) -> None:
    token = sessions.register(room.conn, "bob")
    command_policy.store(room.home, "bob", command_policy.patterns())
    env = identity(room.home, "bob", token)
    for command in MOVED_MAIN:
        call = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash",
                           "tool_input": {"command": command}, "cwd": str(git_repo),
                           "session_id": "s"})
        result = run_cli("hook", "claude", cwd=git_repo, env=env, input=call)
        assert result.returncode == 0, (command, result.stderr)
        out = json.loads(result.stdout)["hookSpecificOutput"]
        assert out["permissionDecision"] == "deny", command
        assert "it is a forced push" in out["permissionDecisionReason"]
    # The audit is written after the answer, by a process of its own (fail closed: the
    # decision never waits on the store), so each entry comes a moment later.
    def refused_so_far() -> list:
        return [e for e in audit.entries(room.conn) if e.action == hooks.DENIED_ACTION]
    refused = wait_until(lambda: len(refused_so_far()) == len(MOVED_MAIN) and refused_so_far(),
                         30, message=lambda: f"{len(refused_so_far())} of 19 audited")
    assert {e.detail for e in refused} == {
        "denied by pattern 'floor: a forced push' (claude's hook)"}


def test_the_pre_push_guard_holds_when_the_first_layer_is_skipped(
        diverged: tuple[Path, Path, str]) -> None:
    worktree, remote, theirs = diverged
    assert guarded(worktree)
    for command in MOVED_MAIN:
        done = subprocess.run(["bash", "-c", command], cwd=worktree, capture_output=True,
                              text=True, timeout=60)
        assert git(remote, "rev-parse", "main").strip() == theirs, (command, done.stderr)
    (worktree / "push.sh").write_text("git push --force origin HEAD:main\n")
    (worktree / "Makefile").write_text("ship:\n\tgit push --force origin HEAD:main\n")
    runs = (["sh", "push.sh"], ["make", "-s", "ship"],
            [sys.executable, "-c", "import subprocess; subprocess.run(['git', 'push',"
             " '--force', 'origin', 'HEAD:main'])"],
            ["git", "push", "origin", ":main"],  # a delete
            ["git", "-c", "alias.p=push --force", "p", "origin", "HEAD:main"])
    for argv in runs:
        done = subprocess.run(argv, cwd=worktree, capture_output=True, text=True,
                              timeout=60)
        assert "bullpen: push to origin refused" in done.stderr, (argv, done.stderr)
        assert git(remote, "rev-parse", "main").strip() == theirs, argv
    # A fast-forward still goes: a new branch, then onto it.
    git(worktree, "push", "-q", "origin", "HEAD:refs/heads/alice")
    commit_file(worktree, "more.txt", "more\n", "more")
    git(worktree, "push", "-q", "origin", "HEAD:refs/heads/alice")
    assert git(remote, "rev-parse", "alice").strip() == git(worktree, "rev-parse", "HEAD").strip()


def test_the_repositorys_own_hooks_still_run_in_the_worktree(
        diverged: tuple[Path, Path, str], git_repo: Path) -> None:
    worktree, remote, _theirs = diverged
    own = git_repo / ".git" / "hooks"
    (own / "pre-commit").write_text("#!/bin/sh\necho own pre-commit >> \"$HOME_LOG\"\n")
    (own / "pre-push").write_text("#!/bin/sh\ncat >> \"$HOME_LOG\"; echo own pre-push"
                                  " \"$1\" >> \"$HOME_LOG\"\n")
    for hook in ("pre-commit", "pre-push"):
        (own / hook).chmod(0o755)
    log = worktree.parent / "hooks.log"
    env = {"HOME_LOG": str(log), "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", "-c", "user.name=a", "-c", "user.email=a@x", "commit", "-q",
                    "--allow-empty", "-m", "x"], cwd=worktree, env=env, check=True)
    subprocess.run(["git", "push", "-q", "origin", "HEAD:refs/heads/alice"], cwd=worktree,
                   env=env, check=True)
    said = log.read_text()
    assert "own pre-commit" in said and "own pre-push origin" in said
    assert "refs/heads/alice" in said  # the refs reached the repository's own pre-push
    assert not (git_repo / ".git" / "config.worktree").exists()
    main_hooks = git(git_repo, "config", "--get", "core.hooksPath").strip() \
        if subprocess.run(["git", "config", "--get", "core.hooksPath"], cwd=git_repo,
                          capture_output=True).returncode == 0 else ""
    assert main_hooks == ""  # the main checkout's hooks are its own, as before
