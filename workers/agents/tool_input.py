"""Paths named in an agent tool call's input: shared by each kind's read detection
(`claude.tool_reads`, `hermes.tool_reads`). Stdlib only: the hook process imports this."""

from __future__ import annotations


def named_paths(tool_input: object, keys: tuple[str, ...]) -> list[str]:
    """The non-empty string values of `keys` in a tool's input."""
    if not isinstance(tool_input, dict):
        return []
    return [value for key in keys if isinstance(value := tool_input.get(key), str) and value]
