"""Pushing this machine's session branches to the room's `push:` remote after commits.

A push can take seconds over a network, so it runs on a thread of its own: the loop only
names the branch. Requests for a branch already waiting coalesce into one push of its
latest head. A failed push is logged and retried at the next commit.
"""

from __future__ import annotations

import logging
import queue
import threading
from pathlib import Path

from worktrees.remote import push_branch

log = logging.getLogger(__name__)


class Pusher:
    def __init__(self, root: Path, remote: str) -> None:
        self.root = root
        self.remote = remote
        self._wanted: queue.Queue[str | None] = queue.Queue()
        self._waiting: set[str] = set()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="bullpen-push", daemon=True)
        self._thread.start()

    def push(self, branch: str) -> None:
        """Push `branch` soon (once, however often it is asked before the push starts)."""
        with self._lock:
            if branch in self._waiting:
                return
            self._waiting.add(branch)
        self._wanted.put(branch)

    def push_session(self, conn, name: str) -> None:
        """Push the branch of session `name` (nothing for the main checkout)."""
        from board import sessions

        session = sessions.get(conn, name)
        if session is not None and session.branch:
            self.push(session.branch)

    def stop(self) -> None:
        self._wanted.put(None)
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while (branch := self._wanted.get()) is not None:
            with self._lock:
                self._waiting.discard(branch)
            try:
                push_branch(self.root, self.remote, branch)
                log.info("pushed %s to %s", branch, self.remote)
            except Exception as error:  # a remote down or refusing: the next commit retries
                log.error("push of %s to %s failed: %s", branch, self.remote, error)
