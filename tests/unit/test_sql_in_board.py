"""Every SQL statement of the product lives in `board/` (sqlite-utils' rule: the store's
vocabulary, called by everything else). Nothing is allow-listed."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE_BOARD = ("worktrees", "workers", "tui")
SQL_METHODS = {"execute", "executemany", "executescript"}


def _is_gitpython(call: ast.Call) -> bool:
    """`git.Git(cwd).execute([...])`: GitPython running a git process, not SQL."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    return (isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute)
            and receiver.func.attr == "Git")


def sql_calls(tree: ast.AST) -> list[int]:
    """Line numbers of every `<anything>.execute/executemany/executescript(...)` call."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in SQL_METHODS and not _is_gitpython(node)]


def sql_calls_outside_board() -> list[str]:
    return [f"{path.relative_to(ROOT)}:{line}"
            for package in OUTSIDE_BOARD for path in sorted((ROOT / package).rglob("*.py"))
            for line in sql_calls(ast.parse(path.read_text(), str(path)))]


def test_no_sql_outside_board() -> None:
    assert sql_calls_outside_board() == [], "move these statements into a board function"


def test_the_check_sees_statements_however_the_connection_is_named() -> None:
    source = ("rows = room.conn.execute('SELECT 1')\n"
              "cur.executemany(q, [])\n"
              "git.Git('.').execute(['git', 'status'])\n")
    assert sql_calls(ast.parse(source)) == [1, 2]
