"""Asking each session's agent its version, off the launch path.

A launch used to ask (`claude --version`: 0.2 s for Claude, about a second for Hermes,
up to 5 s for a program that does not know the flag) before `spawn` or `up` returned.
The coordinator asks instead, on a thread of its own, once per launch of a session
whose agent says its version; the answer (cached per installed binary by
`workers.agents.versions`) is recorded by the coordinator's own loop, which alone
writes through its connection. The unreadable-screen reason that names the version
comes only after the start-up time (30 s), long after the answer.
"""

from __future__ import annotations

import logging
import queue
import threading
from pathlib import Path

from board import sessions
from board.connection import Connection
from board.models import Session
from workers.agents.kinds import adapter_for
from workers.agents.versions import agent_version
from workers.tmux.layout import tool_path

log = logging.getLogger(__name__)


class VersionAsker:
    """Asks, on one daemon thread, the version of agents whose sessions lack one."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self._asked: set[tuple[str, str | None, str | None]] = set()  # name, pane, agent
        self._wanted: queue.SimpleQueue[tuple[str, str | None, str] | None] = \
            queue.SimpleQueue()
        self._answers: queue.SimpleQueue[tuple[str, str | None, str]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def ask(self, running: list[Session]) -> None:
        """Queue each running session whose agent says its version and has none yet."""
        for session in running:
            key = (session.name, session.pane, session.agent)
            if session.agent_version is not None or key in self._asked:
                continue
            self._asked.add(key)  # once per launch, whether its agent says or not
            if not session.agent or not adapter_for(session.agent, session.deliver).says_version:
                continue
            self._wanted.put((session.name, session.pane, session.agent))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="agent-versions",
                                                daemon=True)
                self._thread.start()

    def record(self, conn: Connection) -> None:
        """Write the answers that came back (the session still on the pane asked for)."""
        while True:
            try:
                name, pane, version = self._answers.get_nowait()
            except queue.Empty:
                return
            session = sessions.get(conn, name)
            if session is not None and session.pane == pane and session.agent_version is None:
                sessions.update(conn, name, agent_version=version)

    def stop(self) -> None:
        if self._thread is not None:
            self._wanted.put(None)

    def _run(self) -> None:
        while (item := self._wanted.get()) is not None:
            name, pane, agent = item
            try:
                version = agent_version(self.home, agent, {"PATH": tool_path()})
            except Exception as error:  # a cache file unreadable, a probe that failed oddly
                log.warning("could not ask %s's agent its version: %s", name, error)
                continue
            if version is not None:
                self._answers.put((name, pane, version))
