"""Reading YAML nodes with the line each came from: the helpers every part of
`bullpen.yaml` (sessions, land, the supervisor's levers) parses its own section with.

Each raises `BadInput` naming the file, the line and the dotted key, e.g.
`bullpen.yaml:9: sessions.coder.after: expected a list of session names`.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from board.errors import BadInput

_KEY_LINE = re.compile(r"(?P<indent>\s*)(?P<key>[\w.-]+)\s*:(\s|$)")


def line_of(node: yaml.Node) -> int:
    """The 1-based line a node starts on."""
    return node.start_mark.line + 1


MAX_DEPTH = 50  # bullpen.yaml nests 4 levels; PyYAML's composer recurses per level


def check_depth(path: Path, text: str) -> None:
    """Refuse nesting deeper than `MAX_DEPTH`, at its line, before composing it (the
    scanner is iterative; the composer would raise RecursionError past ~1,000)."""
    depth = 0
    for token in yaml.scan(text, Loader=yaml.SafeLoader):
        if isinstance(token, _OPENING):
            depth += 1
            if depth > MAX_DEPTH:
                line = token.start_mark.line + 1
                where = key_at(text, line - 1)
                where = where if len(where) <= 60 else where[:60] + "…"
                raise BadInput(f"{path.name}:{line}: {where}: nested deeper than"
                               f" {MAX_DEPTH} levels")
        elif isinstance(token, _CLOSING):
            depth -= 1


_OPENING = (yaml.BlockMappingStartToken, yaml.BlockSequenceStartToken,
            yaml.FlowMappingStartToken, yaml.FlowSequenceStartToken)
_CLOSING = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)


def key_at(text: str, index: int) -> str:
    """The dotted key a line of a (possibly broken) YAML file sits under, by indentation."""
    stack: list[tuple[int, str, bool]] = []  # indent, key, whether it opens a block
    lines = text.splitlines()[: index + 1]
    for number, raw in enumerate(lines):
        found = _KEY_LINE.match(raw.expandtabs(1))
        if not found:
            continue
        if "\t" in raw[:len(raw) - len(raw.lstrip())] and number == len(lines) - 1:
            # A tab has no width in YAML: the key belongs under the last key that opened
            # a block (`py:` alone on its line), not wherever the tab's width puts it.
            while stack and not stack[-1][2]:
                stack.pop()
            stack.append((len(found["indent"]), found["key"], False))
            break
        indent = len(found["indent"])
        while stack and stack[-1][0] >= indent:
            stack.pop()
        opens = not raw.expandtabs(1)[found.end():].split("#", 1)[0].strip()
        stack.append((indent, found["key"], opens))
    return ".".join(key for _, key, _ in stack) or "top level"


def mapping(path: Path, node: yaml.Node, key: str) -> dict[str, tuple[yaml.Node, yaml.Node]]:
    if not isinstance(node, yaml.MappingNode):
        raise BadInput(f"{path.name}:{node.start_mark.line + 1}: {key or 'top level'}:"
                       " expected a mapping of keys to values")
    found: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for k, v in node.value:
        line = k.start_mark.line + 1
        if not isinstance(k, yaml.ScalarNode):
            raise BadInput(f"{path.name}:{line}: {key or 'top level'}: a key must be a"
                           " plain name, not a list or a mapping")
        name = f"{key}.{k.value}" if key else k.value
        if k.value in found:  # YAML forbids it; PyYAML would keep the last silently
            raise BadInput(f"{path.name}:{line}: {name}: duplicate key")
        found[k.value] = (k, v)
    return found


def scalar(path: Path, node: yaml.Node, key: str) -> str:
    if not isinstance(node, yaml.ScalarNode) or not str(node.value).strip():
        raise BadInput(f"{path.name}:{node.start_mark.line + 1}: {key}: expected a text value")
    return str(node.value)


def flag(path: Path, node: yaml.Node, key: str) -> bool:
    value = str(getattr(node, "value", "")).lower()
    if not isinstance(node, yaml.ScalarNode) or value not in ("true", "false", "yes", "no"):
        raise BadInput(f"{path.name}:{node.start_mark.line + 1}: {key}: expected true or false")
    return value in ("true", "yes")


def names(path: Path, node: yaml.Node, key: str) -> tuple[str, ...]:
    if isinstance(node, yaml.ScalarNode):
        return (scalar(path, node, key),)
    if not isinstance(node, yaml.SequenceNode):
        raise BadInput(f"{path.name}:{node.start_mark.line + 1}: {key}: expected a list of"
                       " session names")
    return tuple(scalar(path, item, key) for item in node.value)


def count(path: Path, node: yaml.Node, key: str, minimum: int = 0) -> int:
    """A whole number of at least `minimum` (a cap, a limit, a number of notes)."""
    value = str(getattr(node, "value", ""))
    if not isinstance(node, yaml.ScalarNode) or not value.isdigit() or int(value) < minimum:
        raise BadInput(f"{path.name}:{line_of(node)}: {key}: expected a whole number of at"
                       f" least {minimum}")
    return int(value)
