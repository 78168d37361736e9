"""bullpen.yaml's spending levers: `budget:` (the room's, and each session's) and `prices:`.

    budget: $20                  # the room's total: tokens (500k, 1.5M) or dollars ($5, 5 USD)
    prices:                      # USD per million tokens, overriding board/prices.py's table
      my-local-model: {input: 0.5, output: 1.5, cache_read: 0.05}
    sessions:
      coder:
        budget: 200k             # this session's own limit

`up` stores them in the board (`store`), where the coordinator enforces them.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from board import budgets, prices
from board.connection import Connection
from board.errors import BadInput
from board.prices import Price
from workers.room.yaml_nodes import line_of, mapping, scalar

PRICE_KEYS = ("input", "output", "cache_read", "cache_write")


def budget(path: Path, node: yaml.Node, key: str) -> budgets.Limit | None:
    """A `budget:` value: tokens or dollars (or none)."""
    try:
        return budgets.parse_limit(scalar(path, node, key))
    except BadInput as error:
        if str(error).startswith(path.name):
            raise
        raise BadInput(f"{path.name}:{line_of(node)}: {key}: {error}") from None


def room_levers(path: Path, top: dict[str, tuple[yaml.Node, yaml.Node]]) -> dict:
    """The `Config` fields of the top-level `budget:` and `prices:`."""
    return {"budget": budget(path, top["budget"][1], "budget") if "budget" in top else None,
            "prices": price_table(path, top["prices"][1]) if "prices" in top else {}}


def price_table(path: Path, node: yaml.Node) -> dict[str, Price]:
    """`prices:` — model name -> {input, output[, cache_read, cache_write]} in USD per
    million tokens."""
    table = {}
    for model, (_, body) in mapping(path, node, "prices").items():
        where = f"prices.{model}"
        fields = mapping(path, body, where)
        values: dict[str, float] = {}
        for name, (name_node, value) in fields.items():
            if name not in PRICE_KEYS:
                raise BadInput(f"{path.name}:{line_of(name_node)}: {where}.{name}: unknown"
                               f" key; use {', '.join(PRICE_KEYS)}")
            values[name] = _dollars(path, value, f"{where}.{name}")
        if "input" not in values or "output" not in values:
            raise BadInput(f"{path.name}:{line_of(body)}: {where}: give input and output"
                           " (US dollars per million tokens)")
        table[model] = Price(**values)
    return table


def _dollars(path: Path, node: yaml.Node, key: str) -> float:
    text = scalar(path, node, key).lstrip("$")
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if value < 0:
        raise BadInput(f"{path.name}:{line_of(node)}: {key}: expected US dollars per million"
                       " tokens (a number, such as 3 or 0.25)")
    return value


def store(conn: Connection, room: budgets.Limit | None,
          sessions: dict[str, budgets.Limit | None], table: dict[str, Price]) -> None:
    """Keep the plan's budgets and prices in the board (on every `up`)."""
    budgets.record_plan(conn, {budgets.ROOM: room, **sessions})
    prices.store_overrides(conn, table)
