"""What a plan's agent setup brings that runs, grants or sets: shown before an install.

Before `bullpen plan install` writes, the partner sees every hook, command, permission
(mode or rule) and environment variable each session's setup brings (`brought`), and is
asked. Some environment a plan may never set, asked or not (`refuse_env`): bullpen's own
(`BULLPEN_*`, a session's identity and token), the dynamic loader's (`LD_*`, `DYLD_*`),
`PATH` and `NODE_OPTIONS` (which programs run, and what they load first).
"""

from __future__ import annotations

import os
from pathlib import Path

import yaml

from board.errors import BadInput

REFUSED_PREFIXES = ("BULLPEN_", "LD_", "DYLD_")
REFUSED_NAMES = frozenset({"PATH", "NODE_OPTIONS"})
ENV_KEYS = frozenset({"env", "environment"})
# Top-level sections that are all hooks, commands, servers or permissions: every value
# in them is listed (Claude's settings.json, Hermes' config.yaml, an agent's frontmatter).
LISTED = frozenset({"hooks", "permissions", "approvals", "mcp_servers", "mcpServers",
                    "statusLine", "quick_commands", "command_allowlist", "sandbox",
                    "terminal", "enableAllProjectMcpServers", "enabledMcpjsonServers",
                    "apiKeyHelper", "awsAuthRefresh", "awsCredentialExport",
                    "otelHeadersHelper", "permissionMode", "allowed-tools", "tools"})
COMMAND_KEYS = frozenset({"command", "cmd"})  # listed wherever they are


def _dotted(path: tuple[str, ...]) -> str:
    return ".".join(path)


def printable(text: str) -> str:
    """`text` as it may be shown on a terminal: each control character (an escape
    sequence that would erase the line before it, a carriage return, a newline that
    would fake another line of the list) written out as `\\x1b`, `\\r`, `\\n`."""
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def brought(document: object, where: str) -> list[str]:
    """One line per hook, command, permission and environment variable in `document`
    (parsed settings, config or frontmatter of the file `where`)."""
    lines: list[str] = []

    def walk(node: object, path: tuple[str, ...], listed: bool) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                inner = (*path, str(key))
                if str(key) in ENV_KEYS and isinstance(value, dict):
                    lines.extend(f"{where}: {_dotted(inner)}: sets {name}" for name in value)
                else:
                    walk(value, inner, listed or (not path and str(key) in LISTED))
        elif isinstance(node, list) and all(not isinstance(item, (dict, list))
                                            for item in node):
            if listed or (path and path[-1] in COMMAND_KEYS | {"args"}):
                lines.append(f"{where}: {_dotted(path)}: {' '.join(map(str, node))}")
        elif isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, (*path, str(index)), listed)
        elif listed or (path and path[-1] in COMMAND_KEYS):
            lines.append(f"{where}: {_dotted(path)}: {node}")

    walk(document, (), False)
    return [printable(line) for line in lines]


def refuse_env(document: object, where: str) -> None:
    """BadInput naming the first variable in an `env` mapping of `document` that a plan
    may never set."""

    def walk(node: object, path: tuple[str, ...]) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if str(key) in ENV_KEYS and isinstance(value, dict):
                    for name in value:
                        _check_variable(str(name), f"{where}: {_dotted((*path, str(key)))}")
                walk(value, (*path, str(key)))
        elif isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, (*path, str(index)))

    walk(document, ())


def _check_variable(name: str, where: str) -> None:
    if name in REFUSED_NAMES or name.upper().startswith(REFUSED_PREFIXES):
        raise BadInput(f"{where}.{name}: refused: a plan may not set {name} (bullpen's own"
                       " variables, the loader's LD_*/DYLD_*, PATH and NODE_OPTIONS are"
                       " never a plan's); remove it from the plan")


def frontmatter(path: Path) -> object:
    """The YAML frontmatter of a Markdown file (an agent's or skill's), or None."""
    text = path.read_text(errors="replace")
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---", 4)
    try:
        return yaml.safe_load(text[4:end] if end > 0 else "")
    except yaml.YAMLError:
        return None


def review_files(source: Path, files: list[str], shared_dirs: tuple[str, ...]) -> list[str]:
    """What the Markdown agents and skills under `shared_dirs` bring (their frontmatter's
    hooks, permission modes and tools; refused environment too), and each executable
    script among them."""
    lines: list[str] = []
    for relative in files:
        if relative.split("/")[0] not in shared_dirs:
            continue
        path = source / relative
        if relative.endswith(".md"):
            document = frontmatter(path)
            refuse_env(document, relative)
            lines += brought(document, relative)
        if os.access(path, os.X_OK):
            lines.append(f"{relative}: an executable script")
    return lines
