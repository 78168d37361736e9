"""Keeping the warm cap (board/slots.py) each pane tick: a waiting session gets the next
free slot, in plan order; a slot frees when its session's task is done and its agent
idle, when it is stopped or its agent exited, or when it sat idle past `idle_release`.

A finished or idle agent keeps running (warm) until a waiting session needs its slot:
only then is it released. Notes to a waiting session are held (`waiting for a slot`)
and typed once it runs; a note to a released session puts it back in line.

The coordinator cannot import the room (it sits below it), so the room hands it the two
acts that need a pane: `SlotHands.start` (its launch) and `SlotHands.release`. `up` and
the coordinator decide under one file lock (`admitting`), so two deciders never both
fill the last slot.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from board import deliveries, sessions, slots
from board.connection import Connection
from board.errors import BullpenError
from board.models import Session
from board.vocabulary import DesiredState, HoldReason, SessionStatus
from workers.agents.kinds import kind_of
from workers.coordinator import guard
from workers.coordinator.poll import Observation

log = logging.getLogger(__name__)

LOCK_NAME = "slots.lock"
RELOAD_EVERY = 1.0  # seconds between reads of the cap `up` kept (a cheap SELECT)


class SlotHands(Protocol):
    """What the room does for the coordinator (workers/room/slots.py)."""

    def start(self, name: str, dashboard: bool) -> bool:
        """Launch a waiting session's agent in its pane; False when the room's tmux
        session is gone (`down` is under way: nothing starts, nothing is recorded)."""

    def release(self, name: str, why: str) -> None:
        """Close a running session's pane and record it released, `why`."""


@contextlib.contextmanager
def admitting(home: Path, wait: bool = True) -> Iterator[bool]:
    """Hold the room's admission lock (yields False, without it, when `wait` is False and
    another decider holds it)."""
    fd = os.open(home / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def kind(session: Session) -> str:
    return kind_of(session.agent).value


class SlotKeeper:
    """Admits waiting sessions, releases idle or finished ones for them, holds their notes."""

    def __init__(self, conn: Connection, home: Path, hands: SlotHands | None) -> None:
        self.conn, self.home, self.hands = conn, home, hands
        self._kept: slots.Kept | None = None
        self._read_at = -RELOAD_EVERY
        self._held: dict[str, int] = {}  # waiting session -> newest note held for it
        self.last_start: tuple[str, float] | None = None  # (name, when), for the log

    def kept(self, now: float) -> slots.Kept | None:
        if now - self._read_at >= RELOAD_EVERY:
            self._kept, self._read_at = slots.load(self.conn), now
        return self._kept

    def tick(self, mine: list[Session], seen: Observation, now: float | None = None) -> None:
        """One look: requeue released sessions with notes, hold waiting ones' notes, then
        start whoever the free (or freeable) slots admit."""
        now = time.monotonic() if now is None else now
        kept = self.kept(now)
        if kept is None or self.hands is None:
            return
        waits = False
        for session in mine:
            if session.desired == DesiredState.RELEASED and deliveries.waiting(
                    self.conn, session.name, limit=1):
                slots.queue(self.conn, session.name, "a note came; " + kept.cap.describe(
                    kind(session)))
                session = sessions.require(self.conn, session.name)
            if session.desired == DesiredState.WAITING:
                self._hold(session.name)
                waits = True
        if not waits:
            return
        with admitting(self.home, wait=False) as locked:
            if locked:  # else `up` is deciding: next tick
                self._admit(kept, {s.name for s in mine}, seen, now)

    def _hold(self, name: str) -> None:
        waiting = deliveries.waiting(self.conn, name)
        newest = waiting[-1].id if waiting else 0
        if newest and self._held.get(name) != newest:
            deliveries.hold(self.conn, name, HoldReason.WAITING_FOR_SLOT)
        self._held[name] = newest

    def _admit(self, kept: slots.Kept, mine: set[str], seen: Observation,
               now: float) -> None:
        """Under the lock, from the store as it is now (`up` may have just launched);
        this machine's sessions only (each machine's coordinator keeps its own cap)."""
        assert self.hands is not None
        fresh = {s.name: s for s in sessions.all_sessions(self.conn) if s.name in mine}
        holding = [s for s in fresh.values() if slots.holds_slot(s)]
        waiting = [fresh[n] for n in slots.in_order(
            [n for n, s in fresh.items() if s.desired == DesiredState.WAITING], kept.order)]
        for session in waiting:
            want = kind(session)
            while not slots.fits(kept.cap, want, [kind(s) for s in holding]):
                found = self._freeable(kept, holding, want, seen, now)
                if found is None:
                    break
                freed, why = found
                log.info("slot: releasing %s (%s) for %s", freed.name, why, session.name)
                self.hands.release(freed.name, why)
                holding.remove(freed)
            if not slots.fits(kept.cap, want, [kind(s) for s in holding]):
                continue  # another kind may still fit (a per-kind cap)
            log.info("slot: starting %s", session.name)
            try:
                if not self.hands.start(session.name, kept.dashboard):
                    return
            except BullpenError as error:  # refused now (a profile in use…): not each tick
                if guard.is_store_fault(error):
                    raise
                log.error("slot: %s could not start: %s", session.name, error)
                sessions.update(self.conn, session.name, desired=DesiredState.STOPPED)
                sessions.set_status(self.conn, session.name, SessionStatus.STOPPED,
                                    reason=f"could not start for its slot: {error}")
                continue
            self._held.pop(session.name, None)
            self.last_start = (session.name, time.time())
            holding.append(sessions.require(self.conn, session.name))

    def _freeable(self, kept: slots.Kept, holding: list[Session], want: str,
                  seen: Observation, now: float) -> tuple[Session, str] | None:
        """A session whose slot may go now (to a session of kind `want`), or None: idle,
        with nothing waiting for it, and finished or idle past `idle_release`. The first
        in plan order goes first (it has been warm longest)."""
        kind_full = kept.cap.limit(want) is not None and not slots.fits(
            slots.WarmCap(None, kept.cap.kinds), want, [kind(s) for s in holding])
        for name in slots.in_order([s.name for s in holding], kept.order):
            session = next(s for s in holding if s.name == name)
            if kind_full and kind(session) != want:
                continue  # its kind's cap is what is full: only one of its kind helps
            if (why := self._release_reason(kept, session, seen, now)) is not None:
                return session, why
        return None

    def _release_reason(self, kept: slots.Kept, session: Session, seen: Observation,
                        now: float) -> str | None:
        state = seen.states.get(session.name)
        if state is None or state.status != SessionStatus.IDLE or state.input_text:
            return None
        if deliveries.waiting(self.conn, session.name, limit=1):
            return None  # a note is on its way in
        if slots.finished(self.conn, session.name):
            return "slot released: its task is done"
        idle = now - state.since
        if kept.cap.idle_release is not None and idle >= kept.cap.idle_release:
            return f"slot released: idle {idle:.0f}s (idle_release)"
        return None
