"""Keeping each session's spend current, and its budget enforced.

Every `EVERY` seconds the coordinator asks the adapter of each session that worked since
the last look (its status is not idle, or changed) to read on in its agent's own records
(`Adapter.read_spend`: Claude's transcript, Hermes' state.db, Codex's session files);
every session is looked at once at start and every `ALL_EVERY` seconds whatever it did.
Readers carry on from where they stopped (their state is kept in the board's `meta`, so
a new coordinator does not read everything again), so a look at an unchanged record
costs a few `stat` calls. When a session's totals changed, or a budget was set,
`budgets.enforce` holds or releases its notes. A look that read nobody is not repeated
until the store moved (a status changed: stamps) or ALL_EVERY is due: reading 200 idle
sessions from the store every two seconds was a large part of an idle room's CPU.

The figure never goes down (board/spend.py keeps the highest read): a record the reader
found rewritten, cut or deleted, or a reading below the stored figure, is a change alert
to the operator ("coder's transcript x.jsonl was cut: its spend stays 150.0k tok"), once
per change. A record of a shape bullpen does not know makes the spend `unreadable`.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable
from pathlib import Path

from board import budgets, marks, notes, spend
from board.connection import Connection
from board.models import Event, Session
from board.vocabulary import OPERATOR, SYSTEM_SENDER, EventKind, NoteKind, SessionStatus
from workers.agents.kinds import adapter_for
from workers.coordinator import guard
from workers.coordinator.stamps import StoreStamp

log = logging.getLogger(__name__)

EVERY = 2.0  # seconds between looks at working sessions' records
ALL_EVERY = 60.0  # seconds between looks at every session's
STATE_MARK = "spend_state:"
SINCE = "session_created_at"  # in each kept state: whose it is


class Spending:
    """The coordinator's spend reader and budget keeper."""

    def __init__(self, conn: Connection, home: Path) -> None:
        self.conn = conn
        self.home = home
        self._last = 0.0
        self._last_all = 0.0
        self._seen: dict[str, str] = {}  # session -> status at the last look
        self._states: dict[str, dict] = {}
        self._budget_changed = True  # enforce once at start
        self._store = StoreStamp(conn)
        self._settled = False  # the last look read nobody: nothing to do until a change
        self._lowered: set[str] = set()  # sessions whose reading is below their figure
        self._blind: dict[str, str | None] = {}  # session -> why unreadable, as stored
        self.skipped = 0  # looks not taken (tests and the bench)

    def heard(self, event: Event) -> None:
        if event.kind in (EventKind.BUDGET_SET, EventKind.SESSION_REGISTERED):
            self._budget_changed = True

    def due(self, now: float) -> bool:
        """Time for a look, and something to look at (the store moved since the last
        look, it read someone, or every session's look is due)."""
        if now - self._last < EVERY:
            return False
        if not self._store.moved() and self._settled and not self._budget_changed \
                and now - self._last_all < ALL_EVERY:
            self._last = now
            self.skipped += 1
            return False
        return True

    def follow(self, running: Iterable[Session], now: float | None = None) -> None:
        """Read on where it is due; enforce budgets where anything changed."""
        now = time.monotonic() if now is None else now
        self._last = now
        everyone = now - self._last_all >= ALL_EVERY
        if everyone:
            self._last_all = now
        mine = list(running)
        changed = read_any = self._settled = False  # settled once done without a fault
        for session in mine:
            was = self._seen.get(session.name)
            self._seen[session.name] = session.status
            if not everyone and was == session.status and session.status in (
                    SessionStatus.IDLE, SessionStatus.STOPPED, SessionStatus.EXITED):
                continue
            read_any = True
            try:
                changed |= self.read(session)
            except Exception as error:
                if guard.is_store_fault(error):
                    raise
                log.error("spend of %s not read: %s", session.name, guard.reason(error))
        if changed or self._budget_changed:
            self._budget_changed = False
            for name in budgets.enforce(self.conn, [s.name for s in mine]):
                log.info("%s reached its budget: its notes are held", name)
        self._settled = not read_any

    def read(self, session: Session) -> bool:
        """Read on in `session`'s agent's records; True when its totals changed."""
        state = self._state(session.name)
        fresh = state.get(SINCE) != session.created_at
        if fresh:
            state = {}  # a new session of an old name: its predecessor's place is not its own
        reading = adapter_for(session.agent).read_spend(self.home, session, dict(state))
        forgot = fresh and spend.forget(self.conn, session.name, session.created_at)
        if forgot:
            self._blind.pop(session.name, None)
        if reading is None:  # nothing of its own yet
            return forgot
        blind = False
        if self._blind.get(session.name, "") != reading.unreadable:  # "": not asked yet
            blind = spend.set_unreadable(self.conn, session.name, reading.unreadable)
            self._blind[session.name] = reading.unreadable
        if reading.unreadable is not None:
            return forgot or blind
        kept = {**reading.state, SINCE: session.created_at}
        if kept != state:
            self._states[session.name] = kept
            marks.set_mark(self.conn, STATE_MARK + session.name, json.dumps(kept))
        done = spend.record(self.conn, session.name, reading.by_model, reading.source)
        shrunk = list(reading.rewritten)
        if done.lowered and session.name not in self._lowered:
            shrunk.append("records read below the figure counted")
        self._lowered = (self._lowered | {session.name}) if done.lowered \
            else self._lowered - {session.name}
        if shrunk:
            self._alert(session.name, shrunk)
        return forgot or blind or done.changed

    def _alert(self, name: str, shrunk: list[str]) -> None:
        """Tell the operator that `name`'s records shrank and its figure stayed."""
        figure = spend.tokens_text(spend.of_session(self.conn, name).tokens.total)
        what = "; ".join(shrunk[:3]) + (f" and {len(shrunk) - 3} more" if len(shrunk) > 3
                                        else "")
        text = f"[change alert] {name}'s {what}: its spend stays {figure} tokens"
        notes.send(self.conn, SYSTEM_SENDER, OPERATOR, text, kind=NoteKind.SYSTEM)
        log.warning("%s", text)

    def _state(self, name: str) -> dict:
        if name not in self._states:
            try:
                self._states[name] = json.loads(marks.get_mark(self.conn, STATE_MARK + name)
                                                or "{}")
            except ValueError:
                self._states[name] = {}
        return self._states[name]
