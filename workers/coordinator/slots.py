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
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
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
def admitting(home: Path) -> Iterator[None]:
    """Hold the room's admission lock (`up`, `down`: wait while the coordinator acts).
    Without a home to keep it in (deleted), there is nothing to admit: go on unlocked."""
    try:
        fd = os.open(home / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _try_lock(home: Path) -> int | None:
    """The admission lock's descriptor, taken without waiting; None when held."""
    fd = os.open(home / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def kind(session: Session) -> str:
    return kind_of(session.agent).value


def _holds(session: Session, seen: Observation) -> bool:
    """Whether `session` holds a slot: it runs and its agent has not exited. Its pane as
    this tick saw it counts too: `down` records every session stopped before it ends
    their panes, and the slot is not free while the agent still runs."""
    snap = seen.panes.get(session.name)
    return slots.holds_slot(session) or (session.desired == DesiredState.RUNNING
                                         and snap is not None and not snap.dead)


@dataclass(frozen=True)
class Act:
    """One step the room's hands take: release `name` (`why`), or start it."""

    name: str
    why: str | None = None  # None: start

    @property
    def starts(self) -> bool:
        return self.why is None


class SlotKeeper:
    """Admits waiting sessions, releases idle or finished ones for them, holds their notes.

    It decides in the coordinator's tick, under the admission lock, and hands the acts
    (closing a pane waits for its agent to exit: Hermes took 7 s; a launch 0.3-0.9 s) to a
    worker thread that keeps the lock until they are done, so the tick never waits on them."""

    def __init__(self, conn: Connection, home: Path, hands: SlotHands | None) -> None:
        self.conn, self.home, self.hands = conn, home, hands
        self._kept: slots.Kept | None = None
        self._read_at = -RELOAD_EVERY
        self._held: dict[str, int] = {}  # waiting session -> newest note held for it
        self._worker: threading.Thread | None = None
        self._failed: list[tuple[str, str]] = []  # (session, why) a start was refused

    def kept(self, now: float) -> slots.Kept | None:
        if now - self._read_at >= RELOAD_EVERY:
            self._kept, self._read_at = slots.load(self.conn), now
        return self._kept

    def busy(self) -> bool:
        return self._worker is not None and self._worker.is_alive()

    def wait(self, timeout: float = 30.0) -> None:
        """Until the acts under way are done (tests; the coordinator never waits)."""
        if self._worker is not None:
            self._worker.join(timeout)

    def tick(self, mine: list[Session], seen: Observation, now: float | None = None) -> None:
        """One look: requeue released sessions with notes, hold waiting ones' notes, then
        start whoever the free (or freeable) slots admit."""
        now = time.monotonic() if now is None else now
        kept = self.kept(now)
        if kept is None or self.hands is None:
            return
        self._record_failures()
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
        if not waits or self.busy():
            return
        fd = _try_lock(self.home)
        if fd is None:
            return  # `up` is deciding: next tick
        try:
            acts = self._decide(kept, {s.name for s in mine}, seen, now)
        except BaseException:
            os.close(fd)
            raise
        if not acts:
            os.close(fd)
            return
        for act in acts:
            self._held.pop(act.name, None)
        self._worker = threading.Thread(target=self._act, args=(fd, acts, kept.dashboard),
                                        name="slots", daemon=True)
        self._worker.start()

    def _act(self, fd: int, acts: list[Act], dashboard: bool) -> None:
        """The worker: each act in order, under the lock `tick` took (closed at the end)."""
        assert self.hands is not None
        try:
            for act in acts:
                if not act.starts:
                    log.info("slot: releasing %s (%s)", act.name, act.why)
                    self.hands.release(act.name, act.why or "")
                    continue
                log.info("slot: starting %s", act.name)
                try:
                    if not self.hands.start(act.name, dashboard):
                        return  # the room is going down
                except BullpenError as error:  # refused (a profile in use…): not each tick
                    log.error("slot: %s could not start: %s", act.name, error)
                    self._failed.append((act.name, str(error)))
        except Exception as error:  # the next tick decides again from the store
            log.error("slot: %s", guard.reason(error))
        finally:
            os.close(fd)

    def _record_failures(self) -> None:
        while self._failed:
            name, why = self._failed.pop(0)
            sessions.update(self.conn, name, desired=DesiredState.STOPPED)
            sessions.set_status(self.conn, name, SessionStatus.STOPPED,
                                reason=f"could not start for its slot: {why}")

    def _hold(self, name: str) -> None:
        waiting = deliveries.waiting(self.conn, name)
        newest = waiting[-1].id if waiting else 0
        if newest and self._held.get(name) != newest:
            deliveries.hold(self.conn, name, HoldReason.WAITING_FOR_SLOT)
        self._held[name] = newest

    def _decide(self, kept: slots.Kept, mine: set[str], seen: Observation,
                now: float) -> list[Act]:
        """Under the lock, from the store as it is now (`up` may have just launched);
        this machine's sessions only (each machine's coordinator keeps its own cap)."""
        fresh = {s.name: s for s in sessions.all_sessions(self.conn) if s.name in mine}
        holding = [s for s in fresh.values() if _holds(s, seen)]
        kinds = [kind(s) for s in holding]
        waiting = [fresh[n] for n in slots.in_order(
            [n for n, s in fresh.items() if s.desired == DesiredState.WAITING], kept.order)]
        acts: list[Act] = []
        for session in waiting:
            want = kind(session)
            while not slots.fits(kept.cap, want, kinds):
                found = self._freeable(kept, holding, want, seen, now)
                if found is None:
                    break
                freed, why = found
                acts.append(Act(freed.name, why))
                holding.remove(freed)
                kinds.remove(kind(freed))
            if slots.fits(kept.cap, want, kinds):  # else another kind may still fit
                acts.append(Act(session.name))
                kinds.append(want)
        return acts

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
