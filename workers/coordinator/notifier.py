"""What the coordinator tells the human through `notify:` (board/notify_config.py).

Fed from the loop: every event it applies (`heard`), the land outcomes in the audit
once a second (`follow`: a failed landing writes no event), and its own trouble (a
store it cannot write). Each becomes one line for the senders (notify_sender.py),
which batch and send off this thread. A question is told once: the same question of
the same session is told again only after the session stopped asking, and not within
`REPEAT_QUIET` seconds of the last time.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from board import audit, tasks
from board.authority import DONE, Power
from board.connection import Connection
from board.errors import BullpenError
from board.models import Event
from board.notify_config import NotifyEvent, read, require_apprise
from board.vocabulary import EventKind, SessionStatus
from workers.coordinator import guard
from workers.coordinator.notify_sender import FLUSH, Message, Sender

log = logging.getLogger(__name__)

REPEAT_QUIET = 30.0  # seconds before the same question of a session is told again
SHORT = 160  # characters of a question, summary or reason in a line


def _short(text: object) -> str:
    words = " ".join(str(text).split())
    return words if len(words) <= SHORT else words[:SHORT - 1] + "…"


@contextmanager
def _guarded(what: str) -> Iterator[None]:
    """Log a fault of the notifier's own; a store fault goes on to the loop's retry."""
    try:
        yield
    except Exception as error:
        if guard.is_store_fault(error):
            raise
        log.error("notify: %s not told: %s", what, guard.reason(error))


class Notifier:
    """The room's notifications; inert (each call a no-op) without `notify:`."""

    def __init__(self, home: Path, conn: Connection) -> None:
        self.senders: list[Sender] = []
        self.events: frozenset[NotifyEvent] = frozenset()
        try:
            settings = read(home)
            if settings is not None:
                require_apprise()
        except BullpenError as error:
            log.error("notifications off: %s", error)
            return
        if settings is None:
            return
        self.events = settings.events
        self.senders = [Sender(home, url) for url in settings.urls]
        self._asking: dict[str, str] = {}  # session -> the question told, while it asks
        self._told: dict[tuple[str, str], float] = {}
        self._land_cursor = audit.last_id(conn) if NotifyEvent.LANDING in self.events else 0
        self._trouble: str | None = None

    def tell(self, kind: NotifyEvent, text: str) -> None:
        """Queue one line for every receiver, when `kind` is one of the events wanted."""
        if kind in self.events:
            message = Message(kind, text)
            for sender in self.senders:
                sender.put(message)

    def heard(self, conn: Connection, event: Event) -> None:
        """Tell what `event` means to the human, if anything (a fault of its own is
        logged: a notification never stops the coordinator's work)."""
        if self.senders:
            with _guarded(f"event {event.id}"):
                self._heard(conn, event)

    def _heard(self, conn: Connection, event: Event) -> None:
        who = event.session or "someone"
        if event.kind == EventKind.SESSION_STATUS and event.session:
            self._status(event.session, event.data.get("status"), event.data.get("reason"))
        elif event.kind in (EventKind.TASK_DONE, EventKind.TASK_BLOCKED) and event.ref:
            title = self._title(conn, event.ref)
            if event.kind == EventKind.TASK_DONE:
                summary = event.data.get("summary")
                self.tell(NotifyEvent.TASK_DONE, f"task #{event.ref} done by {who}: {title}"
                          + (f" — {_short(summary)}" if summary else ""))
            else:
                self.tell(NotifyEvent.TASK_BLOCKED, f"task #{event.ref} blocked by {who}:"
                          f" {title} — {_short(event.data.get('reason', ''))}")
        elif event.kind == EventKind.BUDGET_REACHED:
            self.tell(NotifyEvent.BUDGET, f"{who} reached its budget"
                      f" ({_short(event.data.get('why', ''))}); its notes are held")
        elif event.kind == EventKind.SESSION_LANDED:
            self.tell(NotifyEvent.LANDING, f"{who} landed: the base is now"
                      f" {str(event.data.get('new_base', ''))[:7]}")
        elif event.kind == EventKind.SESSION_REMOVED and event.session:
            self._asking.pop(event.session, None)

    def _status(self, session: str, status: object, reason: object) -> None:
        if status != SessionStatus.NEEDS_INPUT:
            self._asking.pop(session, None)  # it stopped asking: a new ask is told
            return
        question = _short(reason) if reason else "needs input"
        now = time.monotonic()
        key = (session, question)
        if self._asking.get(session) == question or now - self._told.get(key, -1e9) \
                < REPEAT_QUIET:
            return
        self._asking[session] = question
        self._told = {k: t for k, t in self._told.items() if now - t < REPEAT_QUIET}
        self._told[key] = now
        self.tell(NotifyEvent.QUESTION, f"{session} asks: {question}")

    @staticmethod
    def _title(conn: Connection, task_id: int) -> str:
        try:
            return _short(tasks.get(conn, task_id).title)
        except BullpenError:
            return "(a task since removed)"

    def follow(self, conn: Connection) -> None:
        """Tell the landings that failed or were refused since the last look (a landing
        that succeeded is its event, SESSION_LANDED)."""
        if not self.senders or NotifyEvent.LANDING not in self.events:
            return
        with _guarded("the landings"):
            self._follow(conn)

    def _follow(self, conn: Connection) -> None:
        for entry in audit.since(conn, self._land_cursor, Power.LAND.value):
            self._land_cursor = entry.id
            if entry.outcome != DONE and entry.outcome != audit.STARTED:
                self.tell(NotifyEvent.LANDING, f"landing {entry.target} {entry.outcome}:"
                          f" {_short(entry.detail or '')}")

    def trouble(self, state: str | None) -> None:
        """The coordinator's own state: told when it turns bad (once per state)."""
        if not self.senders or state == self._trouble:
            return
        self._trouble = state
        if state is not None:
            self.tell(NotifyEvent.COORDINATOR, f"the coordinator: {_short(state)}")

    def stop(self) -> None:
        """Send what is queued, then stop the senders: all of them within one `FLUSH`
        (a receiver that hangs delays the coordinator's stop by that much at most)."""
        for sender in self.senders:
            sender.finish()
        deadline = time.monotonic() + FLUSH
        for sender in self.senders:
            sender.wait(deadline)
