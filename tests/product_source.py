"""The product's own source, parsed once per test run: the unit tests that read it with
`ast` (vocabulary, SQL placement, dependencies) share one parse of each file instead of
parsing the whole tree again in every test."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("board", "worktrees", "workers", "tui")


@cache
def files_of(package: str) -> tuple[Path, ...]:
    """Every Python file of one top-level package, sorted."""
    return tuple(sorted((ROOT / package).rglob("*.py")))


@cache
def tree_of(path: Path) -> ast.Module:
    """The parsed module at `path`."""
    return ast.parse(path.read_text(), str(path))


def trees(packages: tuple[str, ...] = PRODUCT) -> dict[Path, ast.Module]:
    """Each file of `packages` with its parsed module."""
    return {path: tree_of(path) for package in packages for path in files_of(package)}
