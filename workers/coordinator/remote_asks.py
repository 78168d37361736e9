"""Answering other machines' asks to stop or restart this machine's sessions.

An ask is done only when this machine granted the asking machine that power in its own
local config (board.machine_grants); the verb then runs as `bullpen VERB SESSION` here,
as this machine's operator, in a thread of its own so notes keep flowing meanwhile. Every
answer is audited on this machine, naming who asked.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

from board import audit, remote_asks
from board.authority import ALLOWED, REFUSED, Power
from board.connection import Connection
from board.machine_grants import granted_to
from board.remote_asks import RemoteAsk
from board.vocabulary import AskState, IdentityVariable

log = logging.getLogger(__name__)

VERB_TIMEOUT = 120.0  # seconds `bullpen stop|restart` may take (agents get time to exit)


class AskAnswerer:
    def __init__(self, home: Path, machine: str) -> None:
        self.home = home
        self.machine = machine
        self._finished: dict[int, tuple[AskState, str]] = {}  # filled by the verb threads
        self._lock = threading.Lock()

    def answer_due(self, conn: Connection) -> None:
        """Record the outcome of verbs that ended; take, or refuse, new asks."""
        with self._lock:
            finished, self._finished = self._finished, {}
        for ask_id, (state, line) in finished.items():
            remote_asks.answer(conn, ask_id, state, line)
        for ask in remote_asks.waiting_for(conn, self.machine):
            self._consider(conn, ask)

    def _consider(self, conn: Connection, ask: RemoteAsk) -> None:
        asker = f"operator@{ask.from_machine}"  # who asked, as the audit names them
        needed = {Power(ask.verb)} | ({Power.REMOVE} if "--remove-worktree" in ask.options
                                      else set())
        missing = sorted(power.value for power in needed - granted_to(self.home,
                                                                      ask.from_machine))
        action = f"{ask.verb} (asked by machine {ask.from_machine})"
        if missing:
            reason = (f"machine {self.machine} has not granted machine {ask.from_machine}"
                      f" {', '.join(missing)} over its sessions (on {self.machine}: bullpen"
                      f" machines grant {ask.from_machine} {' '.join(sorted(needed))})")
            if remote_asks.answer(conn, ask.id, AskState.REFUSED, reason):
                audit.record(conn, asker, action, ask.session, REFUSED, reason)
            return
        if not remote_asks.take(conn, ask.id):
            return
        audit.record(conn, asker, action, ask.session, ALLOWED,
                     f"machines_may: [{', '.join(sorted(needed))}]")
        threading.Thread(target=self._run, args=(ask,), daemon=True,
                         name=f"ask-{ask.id}").start()

    def _run(self, ask: RemoteAsk) -> None:
        """`bullpen VERB SESSION` as this machine's operator (no session's identity)."""
        env = {key: value for key, value in os.environ.items()
               if key not in set(IdentityVariable)}
        env[IdentityVariable.HOME] = str(self.home)
        command = [sys.executable, "-m", "tui", ask.verb, ask.session, *ask.options]
        try:
            done = subprocess.run(command, cwd=self.home.parent, env=env, text=True,
                                  capture_output=True, timeout=VERB_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as error:
            outcome = (AskState.FAILED, f"bullpen {ask.verb} {ask.session} on machine"
                                        f" {self.machine} did not finish: {error}")
        else:
            said = (done.stdout if done.returncode == 0 else done.stderr).strip()
            line = " ".join(said.splitlines()[-3:]) or f"exit status {done.returncode}"
            state = AskState.DONE if done.returncode == 0 else AskState.FAILED
            outcome = (state, line.removeprefix("bullpen: "))
        log.info("ask #%d (%s %s from %s): %s", ask.id, ask.verb, ask.session,
                 ask.from_machine, outcome[1])
        with self._lock:
            self._finished[ask.id] = outcome
