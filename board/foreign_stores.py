"""Other programs' SQLite stores, read only: every SQL statement of bullpen lives in
`board/`, these included (tests/unit/test_sql_in_board.py).

Hermes Agent keeps its conversations in its profile's `state.db` (hermes_state.py in
hermes-agent 0.19.0): `sessions` (one row per conversation, with the `cwd` it ran in and
`started_at`) and `session_model_usage` (tokens per conversation, model, provider and
task — the main loop's and its side calls'). bullpen never writes there; a store that is
busy, missing or of another shape reads as nothing (None).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

_HERMES_USAGE = (
    "SELECT u.model, sum(u.input_tokens), sum(u.output_tokens),"
    " sum(u.cache_read_tokens), sum(u.cache_write_tokens)"
    " FROM session_model_usage u JOIN sessions s ON s.id = u.session_id"
    " WHERE (s.cwd = ? OR s.cwd LIKE ?) AND s.started_at >= ? GROUP BY u.model")


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
    """Tokens by model — [input, output, cache read, cache write] — of the Hermes
    conversations run in `cwd` (or below it) that started at `since` or later."""
    cwd = cwd.rstrip("/")
    try:
        conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=1.0)
    except sqlite3.Error:
        return None
    try:
        rows = conn.execute(_HERMES_USAGE, (cwd, cwd + "/%", since)).fetchall()
    except sqlite3.Error:  # busy, or a store of another shape (another release)
        return None
    finally:
        conn.close()
    return {str(row[0] or "unknown"): [int(value or 0) for value in row[1:]] for row in rows
            if any(row[1:])}
