"""The conflict radar's git answers, kept by the commits they are about (each answer is
fixed for its commits, so it is asked of git once): merge predictions, fork points, and
what the base changed since a fork. Predictions a scan will need are asked for together,
in one `git merge-tree --stdin` process (`prefetch`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from worktrees.gitcmd import run_git
from worktrees.predict import MergePrediction, changed_paths, merge_base, predict_merges

KEPT = 4096  # answers kept of each kind (the oldest go when full)


class MergeCache:
    """Git's answers about the repository whose main checkout is `root`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._predictions: dict[tuple[str, str], MergePrediction] = {}
        self._forks: dict[tuple[str, str], str | None] = {}
        self._base_changes: dict[tuple[str | None, str], frozenset[str]] = {}
        self.predicted = 0  # merges actually predicted by git (not answered from here)

    def prefetch(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Predict every pair not known yet, in one git process."""
        wanted = [pair for pair in dict.fromkeys(pairs) if pair not in self._predictions]
        if not wanted:
            return
        self._make_room(self._predictions, len(wanted))
        self._predictions.update(predict_merges(self.root, wanted))
        self.predicted += len(wanted)

    def predict(self, ours: str, theirs: str) -> MergePrediction:
        """Would merging `theirs` into `ours` conflict (asked of git if not known)?"""
        self.prefetch([(ours, theirs)])
        return self._predictions[(ours, theirs)]

    def fork(self, head: str, base: str | None) -> str | None:
        """Where `head` left `base` (None without a base or common history)."""
        if base is None:
            return None
        key = (head, base)
        if key not in self._forks:
            self._make_room(self._forks, 1)
            self._forks[key] = merge_base(self.root, head, base)
        return self._forks[key]

    def base_changed(self, fork: str | None, base: str) -> frozenset[str]:
        """The paths the base changed since `fork`."""
        key = (fork, base)
        if key not in self._base_changes:
            self._make_room(self._base_changes, 1)
            self._base_changes[key] = changed_paths(self.root, fork, base)
        return self._base_changes[key]

    @staticmethod
    def _make_room(kept: dict, coming: int) -> None:
        while kept and len(kept) + coming > KEPT:
            del kept[next(iter(kept))]


def branch_heads(root: Path) -> dict[str, str]:
    """Every branch and its commit, in one git call."""
    output = run_git(root, "for-each-ref", "--format=%(refname:short) %(objectname)",
                     "refs/heads/").stdout
    return dict(line.split(" ", 1) for line in output.splitlines() if " " in line)


def checked_out(git_dir: Path, heads: dict[str, str]) -> tuple[str | None, str | None]:
    """The main checkout's branch and its commit (None, None when detached)."""
    try:  # read like git does, without a process: `ref: refs/heads/main`
        head = (git_dir / "HEAD").read_text().strip()
    except OSError:
        return None, None
    name = head.removeprefix("ref: refs/heads/") if head.startswith("ref: ") else None
    return (name, heads.get(name)) if name else (None, None)
