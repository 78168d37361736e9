"""Notebooks: what each session writes down, shared or private.

The privacy rule lives here and nowhere else: a private entry is returned to its author
only. Every reader (CLI, MCP, search, dashboard) goes through `_VISIBLE`.
"""

from __future__ import annotations

import re
import time

from board import events, validate
from board.connection import Connection, Row, inserted_id
from board.db import is_postgres, write
from board.errors import BadInput
from board.identity import Caller
from board.models import NotebookEntry
from board.postgres.schema import NOTEBOOK_WORDS
from board.vocabulary import EventKind

_VISIBLE = "(nb.private = 0 OR nb.author = :viewer)"
_WORD = re.compile(r"\w+", re.UNICODE)


def _row_to_entry(row: Row) -> NotebookEntry:
    return NotebookEntry(id=row["id"], author=row["author"], body=row["body"],
                         private=bool(row["private"]), created_at=row["created_at"],
                         tag=row["tag"])


def write_entry(conn: Connection, caller: Caller, body: str, *, private: bool = False,
                tag: str | None = None) -> NotebookEntry:
    validate.text(body, "notebook entry")
    if tag is not None:
        validate.text(tag, "tag")
    now = time.time()
    with write(conn):
        entry_id = inserted_id(conn.execute(
            "INSERT INTO notebook (author, body, private, tag, created_at) VALUES (?, ?, ?, ?, ?)",
            (caller.name, body, int(private), tag, now),
        ))
        # A private entry's event says only that something was written, never what.
        events.emit(conn, EventKind.NOTEBOOK_WRITTEN, caller.name, entry_id, private=private)
    return NotebookEntry(entry_id, caller.name, body, private, now, tag)


def read(conn: Connection, viewer: Caller, author: str | None = None,
         limit: int = 500) -> list[NotebookEntry]:
    """Entries the viewer may see, oldest first, optionally of one author."""
    query = f"SELECT nb.* FROM notebook nb WHERE {_VISIBLE}"
    params: dict[str, object] = {"viewer": viewer.name, "limit": limit}
    if author:
        query += " AND nb.author = :author"
        params["author"] = author
    rows = conn.execute(
        f"SELECT * FROM ({query} ORDER BY nb.id DESC LIMIT :limit) AS newest ORDER BY id", params
    ).fetchall()
    return [_row_to_entry(row) for row in rows]


def search(conn: Connection, viewer: Caller, query: str,
           limit: int = 100) -> list[NotebookEntry]:
    """Full-text search (FTS5) over the entries the viewer may see, best match first."""
    words = _WORD.findall(query or "")
    if not words:
        raise BadInput("search query has no words to look for")
    if is_postgres(conn):
        return _search_postgres(conn, viewer, words, limit)
    # Each word quoted: user text never reaches FTS5's query syntax.
    match = " ".join('"' + word.replace('"', '""') + '"' for word in words)
    rows = conn.execute(
        "SELECT nb.* FROM notebook_fts JOIN notebook nb ON nb.id = notebook_fts.rowid"
        f" WHERE notebook_fts MATCH :match AND {_VISIBLE} ORDER BY rank LIMIT :limit",
        {"match": match, "viewer": viewer.name, "limit": limit},
    ).fetchall()
    return [_row_to_entry(row) for row in rows]


def _search_postgres(conn: Connection, viewer: Caller, words: list[str],
                     limit: int) -> list[NotebookEntry]:
    """The same search on PostgreSQL: every word must appear (as FTS5's quoted words),
    case-folded, through the GIN index; plainto_tsquery keeps user text out of the
    query syntax."""
    rows = conn.execute(
        f"SELECT nb.* FROM notebook nb WHERE {NOTEBOOK_WORDS} @@ plainto_tsquery('simple',"
        f" :words) AND {_VISIBLE} ORDER BY ts_rank({NOTEBOOK_WORDS},"
        " plainto_tsquery('simple', :words)) DESC, nb.id LIMIT :limit",
        {"words": " ".join(words), "viewer": viewer.name, "limit": limit},
    ).fetchall()
    return [_row_to_entry(row) for row in rows]


def operator_view(conn: Connection, limit: int = 500) -> list[NotebookEntry]:
    """Every entry, private ones included (each carries `private`) — for the human's
    dashboard only; never exposed through a session-facing command."""
    rows = conn.execute(
        "SELECT * FROM (SELECT * FROM notebook ORDER BY id DESC LIMIT ?) AS newest ORDER BY id",
        (limit,)
    ).fetchall()
    return [_row_to_entry(row) for row in rows]
