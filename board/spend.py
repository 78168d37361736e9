"""What each session has spent: tokens by model, read from its agent's own records.

The coordinator asks each session's adapter to read its agent's records (Claude Code's
transcript, Codex's session files, Hermes' state.db) and stores the totals here, one
row per (session, model) with where they were read (`source`). Nothing is estimated:
a session whose agent keeps no such record has no row, and its spend is *unknown*; one
whose record bullpen cannot read (a store of a shape it does not know) is *unreadable*,
with the reason (`set_unreadable`), never a silent unknown.

A stored figure never goes down: each model's tokens are the highest ever read, kind by
kind (`record`), so a record rewritten, cut or deleted by the session that spent them
cannot lift a budget's hold; a reading below what is stored says so (`Recorded.lowered`)
and the coordinator alerts the operator. Only a new session of an old name starts again
at nothing (`forget`).

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
UNREADABLE = "unreadable"  # how a figure bullpen cannot read is shown
_UNREADABLE_MARK = "spend_unreadable:"  # meta key + session: why its record is unreadable


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

    def at_least(self, other: Usage) -> Usage:
        """Each kind of token at the higher of the two (a figure that never goes down)."""
        return Usage(max(self.input, other.input), max(self.output, other.output),
                     max(self.cache_read, other.cache_read),
                     max(self.cache_write, other.cache_write))

    def below(self, other: Usage) -> bool:
        """Whether any kind of token is lower than in `other` (a record that shrank)."""
        return (self.input < other.input or self.output < other.output
                or self.cache_read < other.cache_read or self.cache_write < other.cache_write)

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
    unreadable: str | None = None  # why its record cannot be read now (its figure, if
    # any, is the highest read before)

    @property
    def known(self) -> bool:
        return self.source is not None

    def __add__(self, other: Spent) -> Spent:
        blind = self.unreadable or other.unreadable
        if not other.known:
            return records.replace(self, unreadable=blind)
        if not self.known:
            return records.replace(other, unreadable=blind)
        return Spent(self.tokens + other.tokens, self.cost + other.cost,
                     self.cost_known and other.cost_known,
                     tuple(sorted({*self.models, *other.models})),
                     self.source if self.source == other.source else "several",
                     max(self.updated_at or 0, other.updated_at or 0) or None, blind)

    def to_json(self) -> dict:
        if not self.known:  # the same keys as a known one (reference.md's shape)
            return {"known": False, "tokens": None, "cost_usd": None,
                    "cost_usd_priced_part": None, "models": [], "source": None,
                    "unreadable": self.unreadable}
        return {"known": True, "tokens": self.tokens.to_json(),
                "cost_usd": round(self.cost, 6) if self.cost_known else None,
                "cost_usd_priced_part": None if self.cost_known else round(self.cost, 6),
                "models": list(self.models), "source": self.source,
                "unreadable": self.unreadable}


@records.record(frozen=True)
class Recorded:
    """What `record` did: whether the stored figure changed, and whether the reading was
    below it for some model (a record rewritten, cut or deleted: the figure stayed)."""

    changed: bool = False
    lowered: bool = False

    def __bool__(self) -> bool:
        return self.changed


def record(conn: Connection, session: str, by_model: dict[str, Usage],
           source: str) -> Recorded:
    """Store `session`'s totals by model, each kind of token at the highest ever read (a
    model missing from the reading keeps its figure); truthy if the figure changed (then
    a `spend_recorded` event says so), `lowered` if the reading was below it."""
    stored = {model: usage for model, usage in _rows(conn, session)}
    lowered = any(by_model.get(model, Usage()).below(usage) for model, usage in stored.items())
    wanted = {model: usage for model, usage in by_model.items() if usage.total}
    for model, usage in stored.items():
        wanted[model] = usage.at_least(wanted.get(model, Usage()))
    if stored == wanted:
        return Recorded(False, lowered)
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
    return Recorded(True, lowered)


def forget(conn: Connection, session: str, before: float) -> bool:
    """Drop `session`'s figures recorded before `before` (a predecessor's: a new session
    of an old name starts at nothing) and its unreadable mark; True if there were any.
    Figures recorded since stay: a reader that lost its place cannot lower them."""
    old = conn.execute("SELECT count(*) FROM spend WHERE session = ? AND updated_at < ?",
                       (session, before)).fetchone()[0]
    had = bool(old) or unreadable_of(conn, session) is not None
    if had:
        with write(conn):
            conn.execute("DELETE FROM spend WHERE session = ? AND updated_at < ?",
                         (session, before))
            conn.execute("DELETE FROM meta WHERE key = ?", (_UNREADABLE_MARK + session,))
            events.emit(conn, EventKind.SPEND_RECORDED, session, None, tokens=0)
    return had


def set_unreadable(conn: Connection, session: str, reason: str | None) -> bool:
    """Say why `session`'s record cannot be read (None: it can again); its figure, if
    any, stays. True when that changed (a `spend_recorded` event says so)."""
    if unreadable_of(conn, session) == reason:
        return False
    key = _UNREADABLE_MARK + session
    with write(conn):
        if reason is None:
            conn.execute("DELETE FROM meta WHERE key = ?", (key,))
        else:
            conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key)"
                         " DO UPDATE SET value = excluded.value", (key, reason))
        events.emit(conn, EventKind.SPEND_RECORDED, session, None, unreadable=reason)
    return True


def unreadable_of(conn: Connection, session: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?",
                       (_UNREADABLE_MARK + session,)).fetchone()
    return str(row[0]) if row else None


def _unreadable(conn: Connection) -> dict[str, str]:
    rows = conn.execute("SELECT key, value FROM meta WHERE key LIKE ?",
                        (_UNREADABLE_MARK + "%",)).fetchall()
    return {str(row[0])[len(_UNREADABLE_MARK):]: str(row[1]) for row in rows}


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
    for session, reason in _unreadable(conn).items():
        found[session] = records.replace(found.get(session, Spent()), unreadable=reason)
    return found


def of_session(conn: Connection, session: str) -> Spent:
    return by_session(conn).get(session, Spent())


def room_total(spent: dict[str, Spent]) -> Spent:
    total = Spent()
    for one in spent.values():
        total = total + one
    return total


def short(spent: Spent) -> str:
    """`12.3k tok $0.41` for the dashboard and `ls`; `?` when unknown, `unreadable` when
    its record cannot be read (after the figure read before, if any)."""
    if not spent.known:
        return UNREADABLE if spent.unreadable else "?"
    cost = f" ${spent.cost:.2f}" if spent.cost_known else (
        f" ≥${spent.cost:.2f}" if spent.cost else "")
    shown = f"{tokens_text(spent.tokens.total)} tok{cost}"
    return f"{shown} {UNREADABLE}" if spent.unreadable else shown


def tokens_text(count: int) -> str:
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.2f}M"
