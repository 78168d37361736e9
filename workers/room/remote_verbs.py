"""`bullpen stop|restart` of a session another machine runs: asked of that machine.

Only the operator asks (a session's `may:` grants powers on its own machine only), and
only the running machine decides (workers/coordinator/remote_asks.py): it does the verb
when it granted this machine that power (`bullpen machines grant`), else refuses with
one line saying how to grant it. Both machines audit the ask.
"""

from __future__ import annotations

import time
from pathlib import Path

from board import audit, machines, remote_asks, sessions
from board.connection import Connection
from board.db import is_postgres
from board.errors import BullpenError, Refused
from board.identity import Caller
from board.vocabulary import AskState

POLL = 0.2  # seconds between looks at the ask while waiting for its answer


def machine_elsewhere(conn: Connection, home: Path, name: str) -> str | None:
    """The machine running session `name`, when it is not this one (rooms across
    machines only)."""
    if not is_postgres(conn):
        return None
    session = sessions.get(conn, name)
    here = machines.local_name(home)
    return session.machine if session and session.machine not in (None, here) else None


def ask(conn: Connection, home: Path, caller: Caller, name: str, verb: str,
        options: tuple[str, ...], to_machine: str,
        wait: float = remote_asks.ANSWER_WAIT) -> str:
    """Ask `to_machine` to run `verb` on `name` and wait for its answer; returns the
    line it answered with. Refused when it refuses, BullpenError when it failed or
    nobody answered in `wait` seconds."""
    action = f"{verb} (asked of machine {to_machine})"
    if not caller.is_operator:
        reason = (f"session {caller.name!r} may not {verb} {name}: it runs on machine"
                  f" {to_machine}, and only an operator may ask another machine")
        audit.record(conn, caller.name, action, name, AskState.REFUSED, reason)
        raise Refused(reason)
    if not machines.is_reachable(machines.beats(conn).get(to_machine)):
        reason = (f"{name} runs on machine {to_machine}, which is unreachable (bullpen is not"
                  f" up there): its pane and worktree are there; nothing was done")
        audit.record(conn, caller.name, action, name, AskState.REFUSED, reason)
        raise Refused(reason)
    here = machines.local_name(home)
    ask_id = remote_asks.ask(conn, name, verb, options, here, to_machine)
    deadline = time.monotonic() + wait
    answer = remote_asks.get(conn, ask_id)
    while answer.is_open and time.monotonic() < deadline:
        time.sleep(POLL)  # the answer is written on another machine: look again
        answer = remote_asks.get(conn, ask_id)
    if answer.is_open and remote_asks.expire(conn, ask_id):
        line = (f"machine {to_machine} did not answer in {wait:g} s (is its coordinator"
                f" running?); nothing was done to {name}")
        audit.record(conn, caller.name, action, name, AskState.EXPIRED, line)
        raise BullpenError(line)
    if answer.is_open:
        raise BullpenError(f"machine {to_machine} is still doing {verb} {name}; see"
                           " bullpen ls")
    audit.record(conn, caller.name, action, name, answer.state, answer.detail)
    if answer.state == AskState.REFUSED:
        raise Refused(answer.detail or f"machine {to_machine} refused")
    if answer.state != AskState.DONE:
        raise BullpenError(f"on machine {to_machine}: {answer.detail}")
    return f"on machine {to_machine}: {answer.detail}"
