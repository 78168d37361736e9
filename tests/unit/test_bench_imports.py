"""The benches import one way: no circle among bench/ modules, imports inside functions
included (issue 34: dashboard_bench and dashboard_soak imported each other)."""

from __future__ import annotations

import ast
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def bench_imports() -> dict[str, set[str]]:
    """Each bench module -> the bench modules it imports, anywhere in its body."""
    graph: dict[str, set[str]] = {}
    for path in BENCH.glob("*.py"):
        name = f"bench.{path.stem}".removesuffix(".__init__")
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            found |= {n for n in names if n.startswith("bench.") and (BENCH / f"{n[6:]}.py")
                      .exists()}
        graph[name] = found - {name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import circle, each as the path that closes it."""
    found: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        for imported in sorted(graph.get(module, ())):
            if imported in path:
                found.append(path[path.index(imported):] + [imported])
            elif imported > path[0]:  # each circle once, from its smallest module
                visit(imported, [*path, imported])

    for start in sorted(graph):
        visit(start, [start])
    return found


def test_no_bench_module_imports_one_that_imports_it_back() -> None:
    assert circles(bench_imports()) == []


def test_the_check_sees_a_circle_inside_a_function() -> None:
    graph = {"bench.a": {"bench.b"}, "bench.b": {"bench.c"}, "bench.c": {"bench.a"},
             "bench.d": {"bench.a"}}
    assert circles(graph) == [["bench.a", "bench.b", "bench.c", "bench.a"]]
