"""What a model's tokens cost: a small dated table, overridable in bullpen.yaml (`prices:`).

Prices are US dollars per million tokens, as the model makers published them on
`PRICES_DATED` (Anthropic's and OpenAI's pricing pages). They change: a room that needs
exact figures states its own under `prices:` in bullpen.yaml, which `up` stores in the
board, and those win. A model is matched by the longest name in the table that its own
name starts with (`claude-sonnet-4-5-20250929` is `claude-sonnet-4-5`); a model found
nowhere has no price, and its spend is shown in tokens only — never guessed.

Cache prices: Anthropic bills cache writes (5-minute) at 1.25× input and cache reads
at 0.1×; OpenAI bills cached input at its own rate and has no separate cache write.
"""

from __future__ import annotations

import json

from board import marks
from board.connection import Connection
from board.records import record

PRICES_DATED = "2025-11-01"
PRICES_MARK = "prices"  # the plan's `prices:` (JSON), stored by `up`


@record(frozen=True)
class Price:
    """USD per million tokens of each kind."""

    input: float
    output: float
    cache_read: float | None = None  # None: billed as input
    cache_write: float | None = None

    def to_json(self) -> dict:
        return {"input": self.input, "output": self.output, "cache_read": self.cache_read,
                "cache_write": self.cache_write}


def _anthropic(input: float, output: float) -> Price:
    return Price(input, output, round(input * 0.1, 6), round(input * 1.25, 6))


PRICES: dict[str, Price] = {
    "claude-opus-4-5": _anthropic(5.0, 25.0),
    "claude-opus-4-1": _anthropic(15.0, 75.0),
    "claude-opus-4": _anthropic(15.0, 75.0),
    "claude-sonnet-4-5": _anthropic(3.0, 15.0),
    "claude-sonnet-4": _anthropic(3.0, 15.0),
    "claude-3-7-sonnet": _anthropic(3.0, 15.0),
    "claude-haiku-4-5": _anthropic(1.0, 5.0),
    "claude-3-5-haiku": _anthropic(0.8, 4.0),
    "gpt-5-mini": Price(0.25, 2.0, 0.025),
    "gpt-5-nano": Price(0.05, 0.4, 0.005),
    "gpt-5-codex": Price(1.25, 10.0, 0.125),
    "gpt-5": Price(1.25, 10.0, 0.125),
    "gpt-4.1-mini": Price(0.4, 1.6, 0.1),
    "gpt-4.1": Price(2.0, 8.0, 0.5),
    "gpt-4o-mini": Price(0.15, 0.6, 0.075),
    "gpt-4o": Price(2.5, 10.0, 1.25),
    "o4-mini": Price(1.1, 4.4, 0.275),
    "o3": Price(2.0, 8.0, 0.5),
}


def price_for(model: str, overrides: dict[str, Price] | None = None) -> Price | None:
    """The price of `model`: the plan's own first, then the table; None when unknown."""
    for table in (overrides or {}, PRICES):
        if model in table:
            return table[model]
        found = max((name for name in table if model.startswith(name)), key=len, default=None)
        if found is not None:
            return table[found]
    return None


def store_overrides(conn: Connection, overrides: dict[str, Price]) -> None:
    """Keep the plan's `prices:` in the board, for the coordinator and every surface."""
    marks.set_mark(conn, PRICES_MARK, json.dumps(
        {name: price.to_json() for name, price in sorted(overrides.items())}))


def overrides(conn: Connection) -> dict[str, Price]:
    """The plan's `prices:` as `up` stored them ({} when it has none)."""
    try:
        stored = json.loads(marks.get_mark(conn, PRICES_MARK) or "{}")
        return {name: Price(**value) for name, value in stored.items()}
    except (ValueError, TypeError):
        return {}
