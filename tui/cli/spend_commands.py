"""`bullpen spend` (what each session spent, read from its agent's own records) and
`bullpen budget` (the limit at which a session's notes and pings are held)."""

from __future__ import annotations

import argparse

from board import budgets, prices, sessions, spend
from board.errors import BadInput
from tui.cli.context import room
from tui.cli.output import print_json, print_table


def register(subparsers: argparse._SubParsersAction) -> None:
    listing = subparsers.add_parser(
        "spend", help="tokens and cost per session and for the room, from the agents' records")
    listing.add_argument("--json", action="store_true",
                         help="print a JSON object: sessions, room total, budgets")
    listing.set_defaults(handler=show_spend)
    limit = subparsers.add_parser(
        "budget", help="set a session's or the room's budget (notes wait at the limit)")
    limit.add_argument("session", nargs="?", metavar="SESSION",
                       help="the session (or --room for the room's total)")
    limit.add_argument("limit", metavar="LIMIT",
                       help="tokens (200k, 1.5M, 250000), US dollars ($5, 5 USD), or none")
    limit.add_argument("--room", action="store_true", help="the room's total budget")
    limit.set_defaults(handler=set_budget)


def _usd(value: float | None) -> str | None:
    return None if value is None else f"${value:.4f}" if value < 1 else f"${value:.2f}"


def show_spend(args: argparse.Namespace) -> int:
    with room() as current:
        names = sessions.names(current.conn)
        spent = spend.by_session(current.conn)
        limits = budgets.rows(current.conn)
        over = budgets.over(current.conn)
        blind = budgets.unenforceable(current.conn, spent)
    total = spend.room_total(spent)
    room_limit = limits.get(budgets.ROOM, (None, None))[0]
    if args.json:
        print_json({
            "sessions": [{"name": name, **spent.get(name, spend.Spent()).to_json(),
                          "budget": _limit_json(limits.get(name)),
                          "held_for_budget": name in over,
                          "budget_unenforceable": blind.get(name)} for name in names],
            "room": {**total.to_json(), "budget": _limit_json(limits.get(budgets.ROOM))},
            "prices_dated": prices.PRICES_DATED})
        return 0
    rows = []
    for name in names:
        one = spent.get(name, spend.Spent())
        limit = limits.get(name, (None, None))[0]
        rows.append((name, *_figures(one), str(limit) if limit else None,
                     "held: budget" if name in over else
                     budgets.CANNOT_ENFORCE if name in blind else None))
    rows.append(("room", *_figures(total), str(room_limit) if room_limit else None, None))
    print_table(["session", "input", "output", "cache read", "cache write", "cost",
                 "source", "budget", "notes"], rows)
    if total.known and not total.cost_known:
        print("cost: some models have no known price (tokens only for them); add them"
              " under prices: in bullpen.yaml")
    for name in names:
        if (why := spent.get(name, spend.Spent()).unreadable) is not None:
            print(f"{name}: spend {spend.UNREADABLE}: {why}"
                  + (f"; {blind[name].split(':')[0]}" if name in blind else ""))
    print(f"prices as of {prices.PRICES_DATED}; a session marked ? keeps no record bullpen"
          " reads (its spend is unknown)")
    return 0


def _figures(one: spend.Spent) -> tuple:
    if not one.known:
        return ("?", "?", "?", "?", "?", spend.UNREADABLE if one.unreadable else "unknown")
    cost = _usd(one.cost) if one.cost_known else (
        f"≥{_usd(one.cost)}" if one.cost else "no price")
    usage = one.tokens
    source = f"{one.source} ({spend.UNREADABLE} now)" if one.unreadable else one.source
    return (usage.input, usage.output, usage.cache_read, usage.cache_write, cost, source)


def _limit_json(row: tuple[budgets.Limit | None, str | None] | None) -> dict | None:
    if row is None or row[0] is None:
        return None
    return {**row[0].to_json(), "set_by": row[1] or "plan"}


def set_budget(args: argparse.Namespace) -> int:
    if args.room == (args.session is not None):
        raise BadInput("name one SESSION, or --room for the room's total")
    limit = budgets.parse_limit(args.limit)
    scope = budgets.ROOM if args.room else args.session
    with room() as current:
        if not args.room:
            sessions.require(current.conn, scope)
        budgets.set_limit(current.conn, current.caller, scope, limit)
        held = len(budgets.over(current.conn))
    what = "the room's" if args.room else f"{scope}'s"
    print(f"{what} budget: {limit or 'none'}"
          + (f"; {held} session(s) still at their budget" if held else ""))
    return 0
