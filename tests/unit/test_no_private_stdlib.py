"""The product uses no private standard-library API (STYLE.md: Python may remove it; issue
34 found `enum._simple_enum`): no `_name` imported from or read off a standard-library
module, and no private standard-library module imported, but for the few below, each
with its reason."""

from __future__ import annotations

import ast
import sys

from tests.product_source import PRODUCT, ROOT, trees

STDLIB = frozenset(sys.stdlib_module_names)
# Each kept for a reason of its own; a new one is a question for review, not for this list.
KNOWN = {
    "os._exit": "documented public API (ends a process without cleanup)",
    "os._Environ": "the type of os.environ, in an annotation",
    "argparse._SubParsersAction": "the type add_subparsers() returns; argparse names no other",
    "_operator._compare_digest": "hmac.compare_digest itself: hmac costs a hook 3 ms",
    "_sha256.sha256": "hashlib.sha256's C type without hashlib's OpenSSL (3.11)",
    "_sha2.sha256": "the same on 3.12+",
    "_socket": "socket's C module, for the hook's forward: socket.py costs a hook ~2 ms",
}


def private_uses(tree: ast.AST) -> set[str]:
    """`module._name` for each private standard-library name the code imports or reads."""
    aliases: dict[str, str] = {}
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in STDLIB:
                    aliases[alias.asname or alias.name.split(".")[0]] = alias.name
                    if alias.name.split(".")[-1].startswith("_"):
                        found.add(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] in STDLIB:
            private_module = any(_private(part) for part in node.module.split("."))
            found |= {f"{node.module}.{alias.name}" for alias in node.names
                      if private_module or _private(alias.name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in aliases and _private(node.attr):
            found.add(f"{aliases[node.value.id]}.{node.attr}")
    return found


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def test_the_product_uses_no_private_standard_library_api() -> None:
    used = {f"{path.relative_to(ROOT)}: {name}" for path, tree in trees(PRODUCT).items()
            for name in private_uses(tree) if name not in KNOWN}
    assert used == set()


def test_the_check_sees_each_spelling() -> None:
    source = ("import enum\nfrom enum import _simple_enum\nfrom _operator import x\n"
              "e = enum._test_simple_enum\nimport os\nos._exit(0)\nfrom mypkg import _y\n")
    assert private_uses(ast.parse(source)) == {"enum._simple_enum", "_operator.x",
                                               "enum._test_simple_enum", "os._exit"}
