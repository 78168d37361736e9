"""Every SQL statement of the product lives in `board/` (sqlite-utils' rule: the store's
vocabulary, called by everything else). Nothing is allow-listed. Inside those
statements, states are bound from board.vocabulary's enums, never spelled as literals."""

from __future__ import annotations

import ast
import re
from enum import StrEnum

from board import vocabulary
from tests.product_source import ROOT, trees

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
            for path, tree in trees(OUTSIDE_BOARD).items() for line in sql_calls(tree)]


def test_no_sql_outside_board() -> None:
    assert sql_calls_outside_board() == [], "move these statements into a board function"


def test_the_check_sees_statements_however_the_connection_is_named() -> None:
    source = ("rows = room.conn.execute('SELECT 1')\n"
              "cur.executemany(q, [])\n"
              "git.Git('.').execute(['git', 'status'])\n")
    assert sql_calls(ast.parse(source)) == [1, 2]


# Migrations are append-only history (a released one never changes): the schema modules
# keep the words their tables were written with. The database's own functions (the
# pairing's, issue 34) take no bound parameters: their text puts the vocabulary's words in
# from the enums, and this check holds them to it like every other string in board/.
SCHEMA_MODULES = ("board/schema.py", "board/postgres/schema.py",
                  "board/postgres/code_flow.py")
VOCABULARY = frozenset(member.value for enum in vars(vocabulary).values()
                       if isinstance(enum, type) and issubclass(enum, StrEnum)
                       and enum is not StrEnum for member in enum)
SQL_LITERAL = re.compile(r"'((?:[^']|'')*)'")


def _docstrings(tree: ast.AST) -> set[int]:
    owners = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, owners) and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}


def state_literals(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, word) for each vocabulary word quoted as a SQL literal in a string."""
    skipped = _docstrings(tree)
    return [(node.lineno, word) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in skipped
            for word in SQL_LITERAL.findall(node.value) if word in VOCABULARY]


def test_no_state_literal_in_board_sql() -> None:
    found = [f"{path.relative_to(ROOT)}:{line}: '{word}'"
             for path, tree in trees(("board",)).items()
             if str(path.relative_to(ROOT)) not in SCHEMA_MODULES
             for line, word in state_literals(tree)]
    assert found == [], "bind these states as parameters from board.vocabulary's enums"


def test_the_literal_check_sees_states_in_plain_and_formatted_sql() -> None:
    source = ('''"""Docstrings may say 'queued'."""\n'''
              "a = \"UPDATE deliveries SET state = 'held' WHERE note = ?\"\n"
              "b = f\"SELECT * FROM tasks WHERE {c} AND status IN ('done', ?)\"\n"
              "d = \"SELECT name FROM sqlite_master WHERE type = 'table'\"\n"
              "e = \"state = ?\"\n")
    assert state_literals(ast.parse(source)) == [(2, "held"), (3, "done")]
