"""`deny:` in bullpen.yaml: glob patterns of shell commands no agent in the room may run.

    deny:
      - "git push --force*"
      - "rm -rf /*"

A list of text patterns (or one). They are added to bullpen's floor
(`workers.agents.command_policy.FLOOR`), which a room cannot take away; what a match
is, and how each kind of agent enforces it, is `command_policy`'s and docs/agents.md.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from board.errors import BadInput
from workers.room.yaml_nodes import line_of, scalar

KEY = "deny"
MAX_PATTERNS = 200
MAX_CHARS = 500


def parse(path: Path, node: yaml.Node) -> tuple[str, ...]:
    """The room's own patterns, in order, each once (whitespace made one space)."""
    if isinstance(node, yaml.ScalarNode) and node.value in ("", "null", "~"):
        return ()
    items = [node] if isinstance(node, yaml.ScalarNode) else node.value \
        if isinstance(node, yaml.SequenceNode) else None
    if items is None:
        raise BadInput(f"{path.name}:{line_of(node)}: {KEY}: expected a list of command"
                       " patterns, such as - \"git push --force*\"")
    if len(items) > MAX_PATTERNS:
        raise BadInput(f"{path.name}:{line_of(node)}: {KEY}: {len(items)} patterns; at"
                       f" most {MAX_PATTERNS}")
    found: list[str] = []
    for item in items:
        flat = " ".join(scalar(path, item, KEY).split())
        if not flat or len(flat) > MAX_CHARS or not flat.isprintable():
            raise BadInput(f"{path.name}:{line_of(item)}: {KEY}: a pattern must be one"
                           f" printable line of at most {MAX_CHARS} characters")
        if flat.strip("*? ") == "":
            raise BadInput(f"{path.name}:{line_of(item)}: {KEY}: {flat!r} would deny every"
                           " command; name the commands to deny")
        if flat not in found:
            found.append(flat)
    return tuple(found)
