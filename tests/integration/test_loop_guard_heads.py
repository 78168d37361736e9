"""A commit the watcher has not recorded yet is still progress for the loop guard: an
agent that commits and at once answers (no coordinator runs here, so nothing records the
commits) is not held, and one that answers without committing is. Real git worktrees,
the real CLI `note send` as each session, a real SQLite store."""

from __future__ import annotations

import json
from pathlib import Path

from board import chains, sessions
from board.db import connect
from tests.cli_runner import identity, run_cli
from tests.conftest import commit_file, git
from workers.worktree_head import head_commit

LIMIT = 4


def _pair(git_repo: Path, tmp_path: Path) -> dict[str, dict[str, str]]:
    assert run_cli("init", cwd=git_repo).returncode == 0
    home = git_repo / ".bullpen"
    conn = connect(home / "bullpen.db")
    envs = {}
    for name in ("a", "b"):
        worktree = tmp_path / f"wt-{name}"
        git(git_repo, "worktree", "add", "-q", "-b", f"bullpen/{name}", str(worktree))
        token = sessions.register(conn, name, worktree=str(worktree))
        envs[name] = identity(home, name, token)
    chains.set_limits(conn, chains.Limits(notes=LIMIT, rate=1000))
    conn.close()
    return envs


def _exchange(git_repo: Path, tmp_path: Path, envs, rounds: int, commit: bool) -> list[dict]:
    sent, last = [], None
    for index in range(rounds):
        sender, to = ("a", "b") if index % 2 == 0 else ("b", "a")
        if commit and sender == "b":
            commit_file(tmp_path / "wt-b", "src/app.py", f"v = {index}\n", f"step {index}")
        extra = ["--reply-to", str(last)] if last else []
        done = run_cli("note", "send", to, f"answer {index}", *extra, "--json",
                       cwd=git_repo, env=envs[sender])
        assert done.returncode == 0, done.stderr
        note = json.loads(done.stdout)
        sent.append(note)
        last = note["id"]
    return sent


def test_a_commit_not_yet_recorded_resets_the_count(git_repo: Path, tmp_path: Path) -> None:
    envs = _pair(git_repo, tmp_path)
    sent = _exchange(git_repo, tmp_path, envs, 3 * LIMIT, commit=True)
    assert [note["chain"]["state"] for note in sent] == ["open"] * (3 * LIMIT)
    # b's first answer has no earlier head of b's in the chain to compare with (the
    # watcher's record covers that one when a coordinator runs): a, b, a = 3; from then
    # on each of b's commits resets the count
    hops = [note["chain"]["hops_at_note"] for note in sent]
    assert hops[:3] == [1, 2, 3] and max(hops[3:]) <= 2, hops


def test_the_same_exchange_without_commits_is_held(git_repo: Path, tmp_path: Path) -> None:
    envs = _pair(git_repo, tmp_path)
    sent = _exchange(git_repo, tmp_path, envs, LIMIT + 2, commit=False)
    assert [note["chain"]["state"] for note in sent[LIMIT:]] == ["held", "held"]


def test_head_commit_reads_loose_packed_and_detached_heads(git_repo: Path,
                                                           tmp_path: Path) -> None:
    worktree = tmp_path / "wt"
    git(git_repo, "worktree", "add", "-q", "-b", "topic", str(worktree))
    loose = git(worktree, "rev-parse", "HEAD").strip()
    assert head_commit(worktree) == loose == head_commit(git_repo)
    git(git_repo, "pack-refs", "--all")
    assert not (git_repo / ".git" / "refs" / "heads" / "topic").exists()
    assert head_commit(worktree) == loose
    moved = commit_file(worktree, "x.txt", "x\n", "x")
    assert head_commit(worktree) == git(worktree, "rev-parse", "HEAD").strip()
    git(worktree, "checkout", "-q", "--detach", loose)
    assert head_commit(worktree) == loose != moved
    assert head_commit(tmp_path / "nowhere") is None and head_commit(None) is None
