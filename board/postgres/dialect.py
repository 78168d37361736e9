"""The board's SQL, written for SQLite, said in PostgreSQL's words.

Only what the board modules use is translated: `?` and `:name` placeholders, literal `%`,
`INSERT OR IGNORE`, a name for an unnamed subquery in FROM (PostgreSQL 15 requires one),
and `RETURNING id` on inserts into tables with an id column (so a cursor's `lastrowid`
works as on SQLite). Anything else must already be portable SQL.
"""

from __future__ import annotations

import re
from functools import lru_cache

_INSERT = re.compile(r"^\s*INSERT\s+(OR\s+IGNORE\s+)?INTO\s+(\w+)", re.IGNORECASE)
_RETURNING = re.compile(r"\bRETURNING\b", re.IGNORECASE)
_NAME = re.compile(r"[A-Za-z_]\w*")
_SUBQUERY = re.compile(r"\bFROM\s*\(\s*SELECT\b", re.IGNORECASE)
_AFTER_SUBQUERY = re.compile(r"\s*([A-Za-z_]\w*)?")
# Words that may follow an unnamed subquery; anything else after it is its alias.
_CLAUSES = {"order", "where", "group", "limit", "offset", "join", "left", "right", "inner",
            "cross", "full", "natural", "union", "intersect", "except", "having", "window",
            "on", "using"}


@lru_cache(maxsize=1024)
def translate(sql: str, id_tables: frozenset[str], with_params: bool,
              returning: bool) -> tuple[str, bool]:
    """The PostgreSQL text of `sql`, and whether it now returns the inserted row's id."""
    text = _placeholders(sql) if with_params else sql
    text = _name_subqueries(text)
    match = _INSERT.match(text)
    if match is None:
        return text, False
    if match.group(1):  # INSERT OR IGNORE → INSERT … ON CONFLICT DO NOTHING
        text = text[:match.start(1)] + text[match.end(1):]
        text = text.rstrip().rstrip(";") + " ON CONFLICT DO NOTHING"
    wants_id = (returning and match.group(2).lower() in id_tables
                and not _RETURNING.search(text))
    if wants_id:
        text = text.rstrip().rstrip(";") + " RETURNING id"
    return text, wants_id


def _placeholders(sql: str) -> str:
    """`?` → `%s`, `:name` → `%(name)s`, `%` → `%%`, leaving quoted text alone."""
    out: list[str] = []
    i, size = 0, len(sql)
    while i < size:
        char = sql[i]
        if char in "'\"":  # a literal or quoted identifier, '' / "" escaped inside
            end = i + 1
            while end < size:
                if sql[end] == char:
                    if end + 1 < size and sql[end + 1] == char:
                        end += 2
                        continue
                    break
                end += 1
            out.append(sql[i:end + 1].replace("%", "%%"))
            i = end + 1
        elif char == "?":
            out.append("%s")
            i += 1
        elif char == "%":
            out.append("%%")
            i += 1
        elif char == ":" and i + 1 < size and sql[i + 1] == ":":  # a cast, not a name
            out.append("::")
            i += 2
        elif char == ":" and (name := _NAME.match(sql, i + 1)):
            out.append(f"%({name.group()})s")
            i = name.end()
        else:
            out.append(char)
            i += 1
    return "".join(out)


def _name_subqueries(sql: str) -> str:
    """`FROM (SELECT …) ORDER BY id` → `FROM (SELECT …) AS subquery_1 ORDER BY id`."""
    count = 0
    start = 0
    while (found := _SUBQUERY.search(sql, start)) is not None:
        close = _closing_paren(sql, sql.index("(", found.start()))
        if close is None:
            return sql
        after = _AFTER_SUBQUERY.match(sql, close + 1)  # always matches (all optional)
        word = after.group(1) if after else None
        if word is None or word.lower() in _CLAUSES:
            count += 1
            sql = f"{sql[:close + 1]} AS subquery_{count}{sql[close + 1:]}"
        start = found.end()
    return sql


def _closing_paren(sql: str, opening: int) -> int | None:
    depth, i = 0, opening
    while i < len(sql):
        char = sql[i]
        if char in "'\"":
            end = sql.find(char, i + 1)
            while end != -1 and sql[end + 1:end + 2] == char:
                end = sql.find(char, end + 2)
            if end == -1:
                return None
            i = end + 1
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None
