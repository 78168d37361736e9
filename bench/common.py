"""Shared measuring tools: percentiles, a throwaway repository, timing a command, and the
sizes of a `--quick` run."""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TypeVar

from bench.rooms import made

Size = TypeVar("Size", int, float)
QUICK = "BULLPEN_BENCH_QUICK"  # set by `python -m bench --quick`, before benches load


def is_quick() -> bool:
    """Whether this is a `--quick` run (a developer's loop: a minute in all)."""
    return os.environ.get(QUICK) == "1"


def quick(full: Size, brief: Size) -> Size:
    """`full`, or `brief` in a `--quick` run."""
    return brief if is_quick() else full


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def describe(values: list[float], unit: str = "ms", scale: float = 1000.0) -> str:
    return (f"p50 {percentile(values, 0.5) * scale:.2f} {unit}, "
            f"p99 {percentile(values, 0.99) * scale:.2f} {unit} (n={len(values)})")


def scratch_repo() -> Path:
    """A throwaway git repository with one commit, for benches."""
    root = made(Path(tempfile.mkdtemp(prefix="bullpen-bench-")) / "repo")
    root.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@b",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@b"}
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    (root / "README.md").write_text("bench\n")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "init"], cwd=root, check=True, env=env)
    return root


def time_command(argv: list[str], runs: int, env: dict[str, str] | None = None,
                 cwd: Path | None = None) -> list[float]:
    """Wall times of whole-process runs of `argv`."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return times


def median(values: list[float]) -> float:
    return statistics.median(values)


def ratio_spread(times: list[float], baseline: list[float]) -> str:
    """`times` against `baseline` timed interleaved with it (pair i ran together): the
    ratio of the medians, and the quartiles of the pairs' own ratios (a shared machine's
    load changes from one pair to the next)."""
    pairs = sorted(t / b for t, b in zip(times, baseline, strict=True))
    return (f"{median(times) / median(baseline):.2f}x (pairs' ratios: quartiles"
            f" {percentile(pairs, 0.25):.2f}-{percentile(pairs, 0.75):.2f}, n={len(pairs)})")
