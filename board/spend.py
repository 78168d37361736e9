"""What each session has spent: tokens by model, read from its agent's own records.

The coordinator asks each session's adapter to read its agent's records (Claude Code's
transcript, Codex's session files, Hermes' state.db) and stores the totals here, one
row per (session, model) with where they were read (`source`). Nothing is estimated:
a session whose agent keeps no such record has no row, and its spend is *unknown*.

Token kinds: `input` is input not read from a cache; `cache_read` and `cache_write` are
the cached parts (cache writes are Anthropic's; OpenAI reports none); `output` includes
reasoning. A token budget counts all four (`Usage.total`). Cost is computed when shown,
from `board.prices` (the plan's `prices:` first); a model without a price adds tokens
but no cost, and the figure says it is partial.
"""

from __future__ import annotations

import time

from board import events, prices, records
from board.connection import Connection
from board.db import write
from board.vocabulary import EventKind

ROOM = "*"  # the scope of the room's total (a session name is never `*`)


@records.record(frozen=True)
class Usage:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input + other.input, self.output + other.output,
                     self.cache_read + other.cache_read, self.cache_write + other.cache_write)

    def cost(self, price: prices.Price) -> float:
        """US dollars at `price` (per million tokens)."""
        read = price.input if price.cache_read is None else price.cache_read
        written = price.input if price.cache_write is None else price.cache_write
        return (self.input * price.input + self.output * price.output
                + self.cache_read * read + self.cache_write * written) / 1_000_000

    def to_json(self) -> dict:
        return {"input": self.input, "output": self.output, "cache_read": self.cache_read,
                "cache_write": self.cache_write, "total": self.total}


@records.record(frozen=True)
class Spent:
    """One session's spend (or the room's): tokens, and cost where every model's price
    is known (`cost_known`; otherwise `cost` covers only the priced models)."""

    tokens: Usage = records.field(default_factory=Usage)
    cost: float = 0.0
    cost_known: bool = True
    models: tuple[str, ...] = ()
    source: str | None = None  # None: its agent keeps no record bullpen reads
    updated_at: float | None = None

    @property
    def known(self) -> bool:
        return self.source is not None

    def __add__(self, other: Spent) -> Spent:
        if not other.known:
            return self
        if not self.known:
            return other
        return Spent(self.tokens + other.tokens, self.cost + other.cost,
                     self.cost_known and other.cost_known,
                     tuple(sorted({*self.models, *other.models})),
                     self.source if self.source == other.source else "several",
                     max(self.updated_at or 0, other.updated_at or 0) or None)

    def to_json(self) -> dict:
        if not self.known:  # the same keys as a known one (reference.md's shape)
            return {"known": False, "tokens": None, "cost_usd": None,
                    "cost_usd_priced_part": None, "models": [], "source": None}
        return {"known": True, "tokens": self.tokens.to_json(),
                "cost_usd": round(self.cost, 6) if self.cost_known else None,
                "cost_usd_priced_part": None if self.cost_known else round(self.cost, 6),
                "models": list(self.models), "source": self.source}


def record(conn: Connection, session: str, by_model: dict[str, Usage], source: str) -> bool:
    """Store `session`'s totals by model (replacing what was stored); True if they changed
    (then a `spend_recorded` event says so)."""
    stored = {model: usage for model, usage in _rows(conn, session)}
    wanted = {model: usage for model, usage in by_model.items() if usage.total}
    if stored == wanted:
        return False
    now = time.time()
    with write(conn):
        conn.execute("DELETE FROM spend WHERE session = ?", (session,))
        conn.executemany(
            "INSERT INTO spend (session, model, input_tokens, output_tokens,"
            " cache_read_tokens, cache_write_tokens, source, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(session, model, u.input, u.output, u.cache_read, u.cache_write, source, now)
             for model, u in sorted(wanted.items())])
        events.emit(conn, EventKind.SPEND_RECORDED, session, None,
                    tokens=sum(u.total for u in wanted.values()))
    return True


def _rows(conn: Connection, session: str | None = None) -> list[tuple[str, Usage]]:
    where, args = ("WHERE session = ?", (session,)) if session is not None else ("", ())
    return [(row["model"], Usage(row["input_tokens"], row["output_tokens"],
                                 row["cache_read_tokens"], row["cache_write_tokens"]))
            for row in conn.execute(f"SELECT * FROM spend {where} ORDER BY model", args)]


def by_session(conn: Connection) -> dict[str, Spent]:
    """Every session with a record: its spend, cost from the prices in force."""
    table = prices.overrides(conn)
    found: dict[str, Spent] = {}
    for row in conn.execute("SELECT * FROM spend ORDER BY session, model").fetchall():
        usage = Usage(row["input_tokens"], row["output_tokens"], row["cache_read_tokens"],
                      row["cache_write_tokens"])
        price = prices.price_for(row["model"], table)
        one = Spent(usage, usage.cost(price) if price else 0.0, price is not None,
                    (row["model"],), row["source"], row["updated_at"])
        found[row["session"]] = found.get(row["session"], Spent()) + one
    return found


def of_session(conn: Connection, session: str) -> Spent:
    return by_session(conn).get(session, Spent())


def room_total(spent: dict[str, Spent]) -> Spent:
    total = Spent()
    for one in spent.values():
        total = total + one
    return total


def short(spent: Spent) -> str:
    """`12.3k tok $0.41` for the dashboard and `ls`; `?` when unknown."""
    if not spent.known:
        return "?"
    cost = f" ${spent.cost:.2f}" if spent.cost_known else (
        f" ≥${spent.cost:.2f}" if spent.cost else "")
    return f"{tokens_text(spent.tokens.total)} tok{cost}"


def tokens_text(count: int) -> str:
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.2f}M"
