"""Change alerts: a file a session read was changed by someone else.

One change (a coalesced burst of writes, or one commit) makes at most one alert per
reader, listing every path of that reader's that changed. A reader who has not yet
seen an earlier alert for a path is not alerted again for it. A commit of a path as it
was already recorded uncommitted (`as_edited`, when its last change by that session was
an uncommitted one) alerts nobody for that path: its readers were told of that content.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable

from board import deliveries, events, notes, reads, validate
from board.connection import Connection, Row, inserted_id
from board.db import write
from board.models import Alert
from board.vocabulary import MAIN_CHECKOUT, SYSTEM_SENDER, DeliveryState, EventKind, NoteKind

SUBJECT_CHARS = 200  # a commit subject as stored and shown (cleaned, never refused)
PATH_CHARS = 300  # each path as shown in an alert's text (the stored paths are exact)


def _row_to_alert(row: Row) -> Alert:
    return Alert(id=row["id"], session=row["session"], path=row["path"],
                 changed_by=row["changed_by"], commit=row["commit_sha"],
                 created_at=row["created_at"], paths=tuple(json.loads(row["paths"])),
                 note=row["note"], message=row["message"])


def describe(alert_paths: list[str], changed_by: str, commit: str | None,
             message: str | None) -> str:
    """The text the reader sees: which files, by whom, which commit, how to look."""
    shown = ", ".join(validate.one_line(path, PATH_CHARS) for path in alert_paths[:5]) + (
        f" and {len(alert_paths) - 5} more"
                                          if len(alert_paths) > 5 else "")
    where = "the main checkout" if changed_by == MAIN_CHECKOUT else f"session {changed_by}"
    state = f"in commit {commit[:12]}" + (f" ({message})" if message else "") if commit \
        else "uncommitted"
    if changed_by == MAIN_CHECKOUT:
        first = validate.one_line(alert_paths[0], PATH_CHARS)
        look = f"git show {commit[:12]}" if commit else f"git diff -- {first}"
    else:
        look = f"bullpen diff {changed_by} -- {validate.one_line(alert_paths[0], PATH_CHARS)}"
    return (f"[change alert] {shown} changed by {where}, {state}, after you read it."
            f" See: {look} — continue on the new version?")


def record_change(conn: Connection, changed_by: str, paths: Iterable[str],
                  commit: str | None = None, message: str | None = None,
                  as_edited: Iterable[str] = ()) -> list[Alert]:
    """Store one change and alert every other session that read a changed path before it.

    `as_edited`: a commit's paths whose committed content is what the worktree held (the
    watcher saw no write of them with the commit, and they are clean)."""
    changed = sorted(set(paths))
    if not changed:
        return []
    # A subject is the committer's data, not ours to refuse: escape sequences or 9,000
    # characters must not stop the recording (the coordinator would stop with it).
    message = validate.one_line(message, SUBJECT_CHARS) if message else None
    now = time.time()
    alerts: list[Alert] = []
    with write(conn):
        told = _told_uncommitted(conn, changed_by, set(as_edited) & set(changed)) \
            if commit else set()
        change_id = inserted_id(conn.execute(
            "INSERT INTO changes (changed_by, paths, commit_sha, message, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (changed_by, json.dumps(changed), commit, message, now)))
        events.emit(conn, EventKind.CHANGE_RECORDED, changed_by, change_id, paths=changed[:20],
                    commit=commit)
        by_reader: dict[str, list[str]] = {}
        for path in changed:
            if path in told:
                continue
            for reader in reads.readers(conn, path, before=now):
                if reader != changed_by and path not in _unseen_alert_paths(conn, reader):
                    by_reader.setdefault(reader, []).append(path)
        for reader, reader_paths in sorted(by_reader.items()):
            body = describe(reader_paths, changed_by, commit, message)
            note = notes.send(conn, SYSTEM_SENDER, reader, body, kind=NoteKind.ALERT)
            alert_id = inserted_id(conn.execute(
                "INSERT INTO alerts (session, change, path, paths, changed_by, commit_sha,"
                " note, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (reader, change_id, reader_paths[0], json.dumps(reader_paths), changed_by,
                 commit, note.id, now)))
            events.emit(conn, EventKind.ALERT_RAISED, reader, alert_id, path=reader_paths[0],
                        changed_by=changed_by, commit=commit)
            alerts.append(Alert(alert_id, reader, reader_paths[0], changed_by, commit, now,
                                tuple(reader_paths), note.id, message))
    return alerts


RECENT_CHANGES = 500  # how far back a session's own changes are looked through


def _told_uncommitted(conn: Connection, changed_by: str, paths: set[str]) -> set[str]:
    """Those of `paths` whose latest change by `changed_by` is an uncommitted one."""
    if not paths:
        return set()
    latest: dict[str, bool] = {}  # path -> that change was uncommitted
    rows = conn.execute("SELECT paths, commit_sha FROM changes WHERE changed_by = ?"
                        " ORDER BY id DESC LIMIT ?", (changed_by, RECENT_CHANGES))
    for changed, commit in rows:
        for path in set(json.loads(changed)) & paths:
            latest.setdefault(path, commit is None)
        if len(latest) == len(paths):
            break
    return {path for path, uncommitted in latest.items() if uncommitted}


def _unseen_alert_paths(conn: Connection, reader: str) -> set[str]:
    """Paths in alerts the reader has not seen yet (their note is still pending)."""
    rows = conn.execute(
        "SELECT a.paths FROM alerts a JOIN deliveries d ON d.note = a.note"
        " AND d.recipient = a.session WHERE a.session = ?"
        " AND d.state IN (?, ?, ?)", (reader, *deliveries.WAITING, DeliveryState.CLAIMED))
    return {path for (paths,) in rows for path in json.loads(paths)}


def for_session(conn: Connection, session: str, limit: int = 200) -> list[Alert]:
    """A session's alerts, newest first."""
    rows = conn.execute(
        "SELECT a.*, c.message FROM alerts a JOIN changes c ON c.id = a.change"
        " WHERE a.session = ? ORDER BY a.id DESC LIMIT ?", (session, limit)).fetchall()
    return [_row_to_alert(row) for row in rows]


def recent(conn: Connection, limit: int = 200) -> list[Alert]:
    """Every session's alerts, newest first (the operator's watcher panel)."""
    rows = conn.execute(
        "SELECT a.*, c.message FROM alerts a JOIN changes c ON c.id = a.change"
        " ORDER BY a.id DESC LIMIT ?", (limit,)).fetchall()
    return [_row_to_alert(row) for row in rows]
