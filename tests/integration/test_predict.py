"""Merges predicted together in one `git merge-tree --stdin` say what one process per
merge says: clean or not, the files and both sides' lines."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import commit_file, git
from worktrees.predict import predict_merge, predict_merges


def branch(repo: Path, name: str, path: str, text: str) -> str:
    git(repo, "switch", "-q", "-c", name, "main")
    sha = commit_file(repo, path, text, name)
    git(repo, "switch", "-q", "main")
    return sha


def test_a_batch_of_merges_answers_as_one_merge_tree_each(git_repo: Path) -> None:
    one = branch(git_repo, "one", "src/app.py", "def handler():\n    return 'one'\n")
    two = branch(git_repo, "two", "src/app.py", "def handler():\n    return 'two'\n")
    docs = branch(git_repo, "docs", "README.md", "# other words\n")
    pairs = [(one, two), (one, docs), (two, docs), (docs, one), (one, two)]

    batch = predict_merges(git_repo, pairs)

    assert set(batch) == set(pairs)
    for pair in pairs:
        assert batch[pair] == predict_merge(git_repo, *pair)
    assert not batch[(one, two)].clean
    assert [f.path for f in batch[(one, two)].files] == ["src/app.py"]
    assert batch[(one, two)].files[0].ours == ((2, 2),)
    assert batch[(one, docs)].clean and batch[(docs, one)].clean
