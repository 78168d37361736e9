"""Nothing above `workers.agents` asks which kind of agent it holds: it asks the adapter.

A comparison with a kind's name (`kind == "claude"`, `AgentKind.SHELL`, `in ("hermes",
…)`, `case "codex":`) in the room, the coordinator, the plans or the surfaces is a
decision that belongs to the kind's adapter (`workers.agents.adapter.Adapter`), where a
new kind overrides it instead of every caller learning the new name.
"""

from __future__ import annotations

import ast
from pathlib import Path

from workers.agents.adapter import AgentKind

ROOT = Path(__file__).resolve().parents[2]
ABOVE_AGENTS = ("workers/surfaces", "workers/room", "workers/coordinator", "workers/plans")
KIND_NAMES = frozenset(kind.value for kind in AgentKind)
# path:line -> why it must name a kind. Empty: every decision is the adapter's.
ALLOWED: dict[str, str] = {}


def _names_a_kind(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in KIND_NAMES
    if isinstance(node, ast.Attribute):
        return isinstance(node.value, ast.Name) and node.value.id == "AgentKind"
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_names_a_kind(item) for item in node.elts)
    return False


def _asks_the_kind(node: ast.AST) -> bool:
    if isinstance(node, ast.Compare):
        return any(_names_a_kind(side) for side in (node.left, *node.comparators))
    return isinstance(node, ast.MatchValue) and _names_a_kind(node.value)


def kind_comparisons(source: str) -> list[int]:
    """The lines of `source` that compare or match a value against a kind's name."""
    return sorted(node.lineno for node in ast.walk(ast.parse(source))
                  if isinstance(node, ast.expr | ast.pattern) and _asks_the_kind(node))


def test_the_scan_finds_each_way_of_asking_the_kind() -> None:
    source = ('if kind == "claude": pass\nif AgentKind.SHELL != k: pass\n'
              'if k in ("x", "hermes"): pass\nmatch k:\n    case "codex": pass\n'
              'if deliver == "type": pass\nname = "aider"\n')
    assert kind_comparisons(source) == [1, 2, 3, 5]


def test_nothing_above_the_agents_package_compares_against_a_kind() -> None:
    found = {f"{path.relative_to(ROOT)}:{line}"
             for package in ABOVE_AGENTS for path in sorted((ROOT / package).rglob("*.py"))
             for line in kind_comparisons(path.read_text())}
    assert found - ALLOWED.keys() == set(), "ask the kind's adapter instead"
    assert ALLOWED.keys() - found == set(), "an allowance that no longer applies"
