"""Honest dependencies: every core dependency in pyproject.toml is imported by the
product (the tests' own tools belong in the `dev` extra), and the README says what
each one is for."""

from __future__ import annotations

import ast
import re
import tomllib
from importlib.metadata import packages_distributions

from tests.product_source import ROOT, trees


def core_dependencies() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {re.split(r"[\s\[<>=!~;]", spec, maxsplit=1)[0].lower()
            for spec in project["dependencies"]}


def imported_distributions() -> set[str]:
    """The installed distributions whose top-level modules the product imports."""
    owners = packages_distributions()
    found: set[str] = set()
    for tree in trees().values():
        for node in ast.walk(tree):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom)
                     and node.module and not node.level else [])
            for name in names:
                found |= {dist.lower() for dist in owners.get(name.split(".")[0], ())}
    return found


def test_every_core_dependency_is_imported_by_the_product() -> None:
    assert core_dependencies() - imported_distributions() == set(), (
        "nothing in board/, worktrees/, workers/ or tui/ imports these: use them where"
        " they are the right tool, or move them to an extra")


def test_the_readme_says_what_each_core_dependency_is_for() -> None:
    section = (ROOT / "README.md").read_text().split("## Dependencies", 1)[-1].lower()
    assert {name for name in core_dependencies() if name not in section} == set()
