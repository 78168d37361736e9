"""Reads made while no coordinator ran: read back from the agent's own records at start-up.

Claude's hook after each tool call is an HTTP call to the coordinator (a process per
call would cost ~60 ms); with the coordinator down it fails and the read is recorded
nowhere, so a later change to that file would alert nobody. An agent that keeps its own
record of its tool calls (Claude's transcript) is asked, through its adapter
(`Adapter.missed_reads`), for the reads after the session's newest recorded one, which
are recorded at the time the agent made them. Calls its hook did record are never
counted twice: the hook records after the call, later than the record's stamp.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

from board import reads
from board.connection import Connection
from board.models import Session
from board.vocabulary import ReadSource
from workers.agents.kinds import adapter_for
from workers.coordinator import guard

log = logging.getLogger(__name__)


def catch_up_reads(conn: Connection, home: Path, known: Iterable[Session]) -> int:
    """Record the reads sessions' agents made that no hook recorded; returns how many."""
    recorded = 0
    for session in known:
        try:
            recorded += _catch_up(conn, home, session)
        except Exception as error:
            if guard.is_store_fault(error):
                raise
            log.error("reads of %s from its agent's records skipped: %s", session.name,
                      guard.reason(error))
    return recorded


def _catch_up(conn: Connection, home: Path, session: Session) -> int:
    def after() -> float:
        return reads.latest(conn, session.name) or session.created_at

    read_at = adapter_for(session.agent).missed_reads(home, session, after)
    if read_at:
        log.info("%s: %d read(s) its hook missed, from its agent's own records",
                 session.name, len(read_at))
    return reads.record_at(conn, session.name, read_at, ReadSource.TRANSCRIPT)
