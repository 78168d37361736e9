"""Reads made while no coordinator ran: read back from Claude's transcript at start-up.

Claude's hook after each tool call is an HTTP call to the coordinator (a process per
call would cost ~60 ms); with the coordinator down it fails and the read is recorded
nowhere, so a later change to that file would alert nobody. Claude keeps every tool call
in its transcript, so at start-up the calls after a session's newest recorded read are
read back and recorded at the time Claude made them. Calls its hook did record are never
counted twice: the hook records after the call, later than the transcript's stamp.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

from board import reads
from board.connection import Connection
from board.models import Session
from board.vocabulary import ReadSource
from workers.agents import agent_files
from workers.agents.adapter import AgentKind
from workers.agents.claude import transcript as claude_transcript
from workers.agents.claude.tool_reads import claude_read_paths
from workers.agents.kinds import kind_of
from workers.coordinator import guard

log = logging.getLogger(__name__)


def catch_up_reads(conn: Connection, home: Path, known: Iterable[Session]) -> int:
    """Record the reads Claude sessions made that no hook recorded; returns how many."""
    recorded = 0
    for session in known:
        if kind_of(session.agent) != AgentKind.CLAUDE:
            continue
        try:
            recorded += _catch_up(conn, home, session)
        except Exception as error:
            if guard.is_store_fault(error):
                raise
            log.error("reads of %s from its transcript skipped: %s", session.name,
                      guard.reason(error))
    return recorded


def _catch_up(conn: Connection, home: Path, session: Session) -> int:
    conversation = agent_files.read_value(home, session.name, agent_files.CONVERSATION)
    transcript = claude_transcript.transcript_path(conversation or "")
    if transcript is None:
        return 0
    after = reads.latest(conn, session.name) or session.created_at
    read_at: dict[str, float] = {}
    for use in claude_transcript.tool_uses(transcript, after):
        for path in claude_read_paths(use.tool, use.tool_input, use.cwd):
            read_at[path] = max(use.at, read_at.get(path, 0.0))
    if read_at:
        log.info("%s: %d read(s) its hook missed, from Claude's transcript", session.name,
                 len(read_at))
    return reads.record_at(conn, session.name, read_at, ReadSource.TRANSCRIPT)
