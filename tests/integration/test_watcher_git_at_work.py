"""The watcher while a checkout's git is at work: git writes the files and the index
first and moves the branch last, and under load the move comes bursts later. Those files
are held for the move (or told as edits after the grace), never told as edits first."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from board import reads
from tests.conftest import git
from tests.integration.watch_team import Team, a_commits_what_b_read, edit, wait_until
from workers.coordinator.change_filter import INDEX, INDEX_LOCK, ChangeBatch
from workers.coordinator.held_edits import GIT_GRACE_MS

pytestmark = pytest.mark.both_stores


def git_dir_of(tree: Path) -> Path:
    """The checkout's own git dir, where its index is."""
    return Path(git(tree, "rev-parse", "--path-format=absolute", "--git-dir").strip())


def write_as_git_under_load(team: Team, tree: Path, commit: str,
                            files: dict[str, str]) -> None:
    """Do what git's checkout, merge, reset or commit does before it moves the branch,
    with the watcher's burst ending in between (as under load): take the checkout's index
    lock, write the files, and, once the watcher has handled that burst, commit the index
    of `commit` (index.lock renamed over index). The branch is left for the caller."""
    staged = team.repo.parent / f"index-of-{commit[:12]}"  # outside every watched tree
    subprocess.run(["git", "read-tree", commit], cwd=tree, check=True,
                   env={**os.environ, "GIT_INDEX_FILE": str(staged)})
    git_dir, handled = git_dir_of(tree), team.watcher.bursts
    shutil.copyfile(staged, git_dir / INDEX_LOCK)
    for path, text in files.items():
        edit(tree / path, text)
    wait_until(lambda: team.watcher.bursts > handled, "the burst of git's file writes")
    os.replace(git_dir / INDEX_LOCK, git_dir / INDEX)


def commit_without_writing(tree: Path, files: dict[str, str], message: str) -> str:
    """A commit of `files` on the checkout's HEAD, made with no write to the checkout."""
    staged = tree.parent / f"staged-{message.replace(' ', '-')}"
    env = {**os.environ, "GIT_INDEX_FILE": str(staged)}
    subprocess.run(["git", "read-tree", "HEAD"], cwd=tree, check=True, env=env)
    for path, text in files.items():
        blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=tree, input=text,
                              capture_output=True, text=True, check=True).stdout.strip()
        subprocess.run(["git", "update-index", "--cacheinfo", f"100644,{blob},{path}"],
                       cwd=tree, check=True, env=env)
    tree_sha = subprocess.run(["git", "write-tree"], cwd=tree, capture_output=True,
                              text=True, check=True, env=env).stdout.strip()
    return git(tree, "commit-tree", tree_sha, "-p", "HEAD", "-m", message).strip()


def test_a_fast_forward_whose_branch_moves_bursts_after_its_files_is_no_edit(
        team: Team) -> None:
    """The merge writes the files and the index, then moves the branch; under load the
    move came in a later burst, and the main checkout was reported to have edited
    src/app.py (seen in CI on test_taking_in_anothers_commits_is_not_ones_own_change)."""
    team.watcher.held.grace_ms = 60_000  # only the branch's move may release the files
    sha = a_commits_what_b_read(team)
    alerts_before, batches_before = len(team.alerts_of("b")), len(team.batches)
    old = git(team.repo, "rev-parse", "HEAD").strip()
    write_as_git_under_load(team, team.repo, sha, {"src/app.py": "a's version\n"})
    git(team.repo, "update-ref", "-m", "merge bullpen/a: Fast-forward", "refs/heads/main",
        sha, old)
    team.sentinel(team.repo)
    assert [b for b in team.batches[batches_before:] if "src/app.py" in b.paths] == []
    assert len(team.alerts_of("b")) == alerts_before
    assert not team.watcher.holding


def test_an_edit_whose_commit_moves_the_branch_a_burst_later_is_the_commit(
        team: Team) -> None:
    """`git commit -a` right after an edit: the edit and the index fall in one burst, the
    branch's move in the next. One change, the commit's, told as news (the edit was never
    reported on its own)."""
    team.watcher.held.grace_ms = 60_000
    reads.record(team.room.conn, "b", ["src/app.py"])
    tree = team.tree("a")
    old = git(tree, "rev-parse", "HEAD").strip()
    sha = commit_without_writing(tree, {"src/app.py": "v2\n"}, "handler returns v2")
    write_as_git_under_load(team, tree, sha, {"src/app.py": "v2\n"})
    git(tree, "update-ref", "-m", "commit: handler returns v2", "refs/heads/bullpen/a", sha,
        old)
    wait_until(lambda: any(b.commit == sha for b in team.batches), "the commit")
    team.sentinel(tree)
    assert [b for b in team.batches if "src/app.py" in b.paths] == [
        ChangeBatch("a", ("src/app.py",), sha, "handler returns v2")]
    assert [alert.commit for alert in team.alerts_of("b")] == [sha]


def test_an_edit_while_git_is_at_work_and_no_branch_moves_is_told_after_the_grace(
        team: Team) -> None:
    """`git add`, `git stash pop`, a conflicted merge: the index is written with the files
    and no HEAD moves. The files are held for the grace, then told as edits."""
    reads.record(team.room.conn, "b", ["src/app.py"])
    tree = team.tree("a")
    started = time.monotonic()
    write_as_git_under_load(team, tree, git(tree, "rev-parse", "HEAD").strip(),
                            {"src/app.py": "unstashed\n"})
    wait_until(lambda: team.alerts_of("b"), "the edit, after the grace")
    assert time.monotonic() - started >= GIT_GRACE_MS / 1000  # held until then
    [alert] = team.alerts_of("b")
    assert (alert.paths, alert.changed_by, alert.commit) == (("src/app.py",), "a", None)
    assert not team.watcher.holding


def test_an_edit_then_git_add_alerts_once(team: Team) -> None:
    """Whether or not `git add` falls in the edit's burst, the staged edit is told once."""
    reads.record(team.room.conn, "b", ["src/app.py"])
    tree = team.tree("a")
    edit(tree / "src" / "app.py", "staged\n")
    git(tree, "add", "src/app.py")
    wait_until(lambda: team.alerts_of("b"), "the staged edit's alert")
    wait_until(lambda: not team.watcher.holding, "nothing held")
    team.sentinel(tree)
    [alert] = team.alerts_of("b")
    assert (alert.paths, alert.commit) == (("src/app.py",), None)


def test_plain_edits_are_never_held_even_while_another_checkouts_git_works(
        team: Team) -> None:
    """Only a checkout whose own git is at work holds its edits: an agent's edit is told
    at once (the alert latency target), whatever git does in the main checkout."""
    team.watcher.held.grace_ms = 60_000  # a held edit would not be told within the deadline
    reads.record(team.room.conn, "b", ["src/app.py"])
    main_lock = git_dir_of(team.repo) / INDEX_LOCK
    main_lock.write_bytes(b"")  # git at work in the main checkout, for good
    try:
        edit(team.tree("a") / "src" / "app.py", "a's edit\n")
        wait_until(lambda: team.alerts_of("b"), "a's edit, told at once")
    finally:
        main_lock.unlink()
    assert not team.watcher.holding
