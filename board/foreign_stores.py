"""Other programs' SQLite stores, read only: every SQL statement of bullpen lives in
`board/`, these included (tests/unit/test_sql_in_board.py).

Hermes Agent keeps its conversations in its profile's `state.db` (hermes_state.py): the
`sessions` table has one row per conversation, with the `cwd` it ran in and
`started_at`. Where the tokens are depends on the release, so the store's shape is
probed, never assumed: 0.19.0 keeps them in `session_model_usage` (per conversation,
model, provider and task — the main loop's and its side calls'); 0.17.0 and 0.18.2 in
the `sessions` row itself (`input_tokens`, `output_tokens`, `cache_read_tokens`,
`cache_write_tokens`, with its `model`). Both split input as bullpen does (cached tokens
apart). bullpen never writes there; a store that is busy or missing reads as nothing
(None, read again later); one of neither shape raises `UnknownShape`, naming what it has.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
_WHERE = " WHERE (s.cwd = ? OR s.cwd LIKE ?) AND s.started_at >= ?"
_BY_USAGE_TABLE = (  # hermes-agent 0.19.0
    "SELECT u.session_id, u.model, sum(u.input_tokens), sum(u.output_tokens),"
    " sum(u.cache_read_tokens), sum(u.cache_write_tokens)"
    " FROM session_model_usage u JOIN sessions s ON s.id = u.session_id"
    + _WHERE + " GROUP BY u.session_id, u.model")
_BY_SESSION_ROW = (  # hermes-agent 0.17.0, 0.18.2
    "SELECT s.id, s.model, s.input_tokens, s.output_tokens, s.cache_read_tokens,"
    " s.cache_write_tokens FROM sessions s" + _WHERE)


class UnknownShape(Exception):
    """A store whose tables are of no shape bullpen knows (what it has is the message)."""


_HERMES_BEGAN = "SELECT started_at FROM sessions WHERE id = ?"
# What the model was given of each user turn: 0.19 keeps the bytes sent, a hook's context
# included, in `api_content` beside the clean `content`; 0.17 and 0.18 only `content`.
_HERMES_USER_TEXT = ("SELECT {columns} FROM messages WHERE session_id = ? AND role = 'user'"
                     " ORDER BY id")
_HERMES_MESSAGE_COLUMNS = "SELECT name FROM pragma_table_info('messages')"


def hermes_conversation(store: Path, conversation: str) -> tuple[float, str] | None:
    """When Hermes conversation `conversation` began and the text of its user messages
    as the store keeps them to send again at a `--resume`; None when the
    store cannot say (missing, busy, of another shape, no such conversation)."""
    try:
        conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=1.0)
    except sqlite3.Error:
        return None
    try:
        began = conn.execute(_HERMES_BEGAN, (conversation,)).fetchone()
        known = {row[0] for row in conn.execute(_HERMES_MESSAGE_COLUMNS)}
        columns = "content, api_content" if "api_content" in known else "content, NULL"
        rows = conn.execute(_HERMES_USER_TEXT.format(columns=columns),
                            (conversation,)).fetchall()
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    if began is None or began[0] is None:
        return None
    return float(began[0]), "\n".join(str(row[1] or row[0] or "") for row in rows)


def hermes_usage(store: Path, cwd: str, since: float) -> dict[str, list[int]] | None:
    """Tokens — [input, output, cache read, cache write] — of each Hermes conversation
    run in `cwd` (or below it) that started at `since` or later, by `conversation\tmodel`;
    None when the store cannot be read now (busy, missing)."""
    cwd = cwd.rstrip("/")
    try:
        conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=1.0)
    except sqlite3.Error:
        return None
    try:
        query = _hermes_query(conn)
        rows = conn.execute(query, (cwd, cwd + "/%", since)).fetchall()
    except sqlite3.OperationalError:  # busy (locked), or gone meanwhile
        return None
    except sqlite3.DatabaseError as error:  # not a database at all
        raise UnknownShape(f"not a database ({error})") from None
    finally:
        conn.close()
    return {f"{row[0]}\t{row[1] or 'unknown'}": [int(value or 0) for value in row[2:]]
            for row in rows if any(row[2:])}


def _hermes_query(conn: sqlite3.Connection) -> str:
    """The query that reads this store's shape (UnknownShape when none does)."""
    tables = {str(row[0]) for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    sessions = _columns(conn, "sessions") if "sessions" in tables else set()
    if not {"id", "cwd", "started_at"} <= sessions:
        raise UnknownShape("no sessions table with cwd and started_at" if tables
                           else "no tables")
    if "session_model_usage" in tables and {"session_id", "model", *TOKENS} <= _columns(
            conn, "session_model_usage"):
        return _BY_USAGE_TABLE
    if {"model", *TOKENS} <= sessions:
        return _BY_SESSION_ROW
    raise UnknownShape("no token columns bullpen knows (tables: "
                       + ", ".join(sorted(tables)) + ")")


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")}
