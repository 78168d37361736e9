"""Delivering waiting notes into panes: only into the agent's own empty prompt, two-phase,
exactly once across crashes; shells are never typed into.

The rule (DESIGN.md, "Delivery into a pane"): a note is typed only when the session's
adapter sees its agent's own empty prompt in front, still for the debounce, with no
text of the human's in the input line and no other program in the foreground. Anything
else holds the note with a reason (`held`: busy, needs input, human typing, shell
session, …) until a hook hands it to the model or the case clears. A session at its
budget gets only the note that told it so (board/budgets.py); the rest wait `budget`.

Typing is two-phase: the notes are claimed (committed), pasted, checked to be in the
input line, submitted with a separate Enter, and confirmed `typed` once the line left the
input — or once tmux took that Enter, if the pane dies before it is seen to. After a
crash, `recover` looks for each claimed note's id in its pane: still in the input line
(pasted, no Enter) → Enter is pressed; in the history → confirmed; nowhere → queued
again; pane gone or replaced → re-offered marked as a possible repeat. Typing that fails
for any reason (tmux gone, out of file descriptors, a store read) puts its note back the
same way; a claim that even that could not settle is decided as after a crash at the
session's next tick, and no later note is typed past it (`deliveries.claim`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping

from board import deliveries
from board.connection import Connection
from board.models import Note, Session
from board.vocabulary import HoldReason
from workers.agents import framing
from workers.agents.adapter import Adapter, AgentState, Route, Screen, Sign
from workers.agents.readers.generic import GenericAdapter
from workers.coordinator import guard
from workers.coordinator.status import PaneStatus
from workers.tmux import keyboard, sanitize
from workers.tmux.panes import PaneSnapshot, owned
from workers.tmux.server import RoomServer, TmuxError

log = logging.getLogger(__name__)

QUEUE_CAP = deliveries.QUEUE_CAP  # waiting notes kept for typing; older ones: inbox
# Notes typed in one input line: one, so each reads with its own header and none is cut
# for another's sake (an agent with a turn hook takes the rest into that same turn).
PER_LINE = 1
# Seconds to see a paste land in the input line, or leave it on Enter. A real Claude Code
# starting beside others on a loaded 2-core machine took over 1 s to draw a paste; the wait
# ends as soon as it shows, so only a paste that went elsewhere pays the whole of it.
CHECK_TIMEOUT = 4.0
CHECK_EVERY = 0.01
KEY_QUIET = 3.0  # seconds without a key from a human before typing into the pane
ECHO_TIMEOUT = 0.2  # a line-oriented program that echoes shows a paste at once
STEPS = ("claimed", "pasted", "entered", "submitted")  # where `on_step` is called


def typed_line(batch: list[Note], capped: int = 0, repeats: set[int] | None = None) -> str:
    """The one line typed for a batch: each note framed by bullpen, then the overflow
    notice (never cut: each note is cut to its own share first)."""
    parts = [framing.typed_form(note, note.id in (repeats or set())) for note in batch]
    if capped:
        parts.append(framing.overflow_notice(capped, QUEUE_CAP, typed=True))
    return sanitize.clean(" ".join(parts), limit=sanitize.LIMIT * max(1, len(parts)))


def hold_reason(adapter: Adapter, status: PaneStatus | None,
                key_at: float | None = None, now: float | None = None) -> HoldReason | None:
    """Why a note may not be typed into this pane now; None when it may. `key_at` is
    when a human last typed at a client showing the pane (tmux's client_activity)."""
    if adapter.route == Route.ANNOUNCE:
        return HoldReason.SHELL
    if status is None or status.status in (AgentState.EXITED, AgentState.STOPPED):
        return HoldReason.NO_PANE
    if not adapter.opted_in:
        return HoldReason.NOT_OPTED_IN
    if status.status == AgentState.NEEDS_INPUT:
        return HoldReason.NEEDS_INPUT
    if (status.reason or "").endswith(" in front"):
        return HoldReason.NOT_IN_FRONT
    if status.status == AgentState.UNKNOWN:
        return HoldReason.UNKNOWN
    if status.status != AgentState.IDLE:
        return HoldReason.BUSY
    if status.input_text or status.in_mode:
        return HoldReason.HUMAN_TYPING  # text in its input line, or a human in copy mode
    if key_at is not None and (time.time() if now is None else now) - key_at < KEY_QUIET:
        return HoldReason.HUMAN_TYPING  # a key reached the pane a moment ago
    return None


def in_input(adapter: Adapter, server: RoomServer, pane: str, note_id: int) -> bool:
    """True when note `note_id`'s header is in the agent's input line now.

    A TUI's input line is read by its adapter. A line-oriented program has none that
    bullpen knows: its input is the last line of its output, wrapped rows joined."""
    marker = framing.typed_marker(note_id)
    if adapter.line_oriented:
        text, _, _ = keyboard.screen_now(server, pane, joined=True)
        last = next((line for line in reversed(text.splitlines()) if line.strip()), "")
        return bool(marker.search(last))
    text, x, y = keyboard.screen_now(server, pane)
    return bool(marker.search(adapter.input_text(Screen.from_text(text, (x, y))) or ""))


NO_SERVER = "no server running"  # tmux found no server: the command never ran
SERVER_EXITING = "server exited unexpectedly"  # it went while the command was sent


def typed_may_have_reached(error: Exception, entering: bool) -> bool:
    """After typing failed with `error`: may the agent have had the note? (Then it is
    offered again flagged as a possible repeat.) Not when the server was gone before the
    Enter reached it: nothing was submitted, and the pane holding any pasted text is gone."""
    if not isinstance(error, TmuxError):
        return True
    if NO_SERVER in str(error):
        return False
    return entering or SERVER_EXITING not in str(error)


class Deliverer:
    """Delivers each session's waiting notes: typed, held with a reason, or announced."""

    def __init__(self, conn: Connection, server: RoomServer,
                 on_step: Callable[[str], None] | None = None) -> None:
        self.conn = conn
        self.server = server
        self.on_step = on_step or (lambda step: None)  # tests kill the process at a step
        # session -> (reason last written, newest note it held): a note that comes while
        # the session is held is written held too, not left queued
        self._held: dict[str, tuple[HoldReason, int]] = {}
        self._announced: dict[str, int] = {}  # shell session -> newest note announced
        self._unsettled: set[str] = set()  # sessions whose claim failed and stayed claimed

    def deliver(self, session: Session, adapter: Adapter, status: PaneStatus | None,
                snap: PaneSnapshot | None,
                mcp_connecting: Callable[[], bool] = lambda: False) -> list[int]:
        """Type the session's next waiting notes if its pane allows; returns the ids typed.
        `mcp_connecting`: the agent's bullpen MCP server has not listed its tools yet, so
        a note asking the model to use them waits (Claude answered "still connecting")."""
        if session.name in self._unsettled:
            self._settle(session.name, adapter, snap)
        waiting = deliveries.waiting(self.conn, session.name)
        if not waiting:
            self._held.pop(session.name, None)
            if snap is not None and snap.waiting_mark:
                self._clear_announcement(session.name, snap.pane_id)
            return []
        waiting = deliveries.budget_hold(self.conn, session.name, waiting)  # at its budget
        if not waiting:
            return []
        if len(waiting) > QUEUE_CAP:
            overflow = waiting[: len(waiting) - QUEUE_CAP]
            deliveries.hold(self.conn, session.name, HoldReason.CAPPED,
                            [note.id for note in overflow])
            waiting = waiting[len(overflow):]
        if status is not None and status.status == AgentState.STARTING and \
                adapter.route != Route.ANNOUNCE:
            return []  # a pane just (re)started: queued for its prompt, nothing to raise
        reason = hold_reason(adapter, status, snap.key_at if snap is not None else None)
        if reason is None and mcp_connecting():  # asked only when a note could be typed
            reason = HoldReason.MCP_CONNECTING
        if reason is not None or snap is None:
            self._hold(session.name, reason or HoldReason.NO_PANE, waiting[-1].id)
            if reason == HoldReason.SHELL and snap is not None:
                self._announce(session.name, snap.pane_id, waiting)
            return []
        self._held.pop(session.name, None)
        return self._type(session.name, adapter, snap, waiting[:PER_LINE])

    def holds(self, name: str) -> bool:
        """Whether a hold reason was written for `name`'s notes (to clear once they go),
        or a claim of its notes is left to settle."""
        return name in self._held or name in self._unsettled

    def unsettled(self) -> bool:
        """Whether a claim that a failed typing left is still to be settled."""
        return bool(self._unsettled)

    def _hold(self, name: str, reason: HoldReason, newest: int) -> None:
        # one write when the reason changes or a note came, not one per tick
        if self._held.get(name) != (reason, newest):
            deliveries.hold(self.conn, name, reason)
            self._held[name] = (reason, newest)

    def _announce(self, name: str, pane_id: str, waiting: list[Note]) -> None:
        newest = waiting[-1]
        if self._announced.get(name) == newest.id:
            return
        text = (f"bullpen: {len(waiting)} note(s) waiting, newest #{newest.id} from"
                f" {newest.sender} - read with: bullpen note inbox")
        try:
            keyboard.announce(self.server, pane_id, sanitize.clean(text, limit=200))
            self._announced[name] = newest.id
        except TmuxError as error:
            log.warning("could not announce notes in %s: %s", pane_id, error)

    def _clear_announcement(self, name: str, pane_id: str) -> None:
        """Its notes were read (or handed): the shell's "note(s) waiting" mark goes."""
        try:
            keyboard.clear_announcement(self.server, pane_id)
            self._announced.pop(name, None)
        except TmuxError as error:
            log.warning("could not clear the notes mark in %s: %s", pane_id, error)

    def _type(self, name: str, adapter: Adapter, snap: PaneSnapshot,
              batch: list[Note]) -> list[int]:
        pane = snap.pane_id
        ids = deliveries.claim(self.conn, name, [note.id for note in batch],
                               pane=f"{pane}:{snap.pid}")
        if not ids:
            if deliveries.claimed(self.conn, name):  # an earlier claim comes first
                self._settle(name, adapter, snap)
            return []  # or a hook or the inbox took them first
        self._unsettled.add(name)  # until the claim is confirmed or released
        self.on_step("claimed")
        ours = [note for note in batch if note.id in ids]
        entering = False  # an Enter was sent, or is being sent
        try:
            # Capped notes (now or while it was busy) it was not told about: told here.
            capped, newest_capped = deliveries.untold_overflow(self.conn, name)
            line = typed_line(ours, capped, deliveries.repeats(self.conn, name, ids))
            pasted_at = time.monotonic()
            keyboard.paste(self.server, pane, line)
            self.on_step("pasted")
            shown = self._wait_for(adapter, pane, ours[0].id, present=True,
                                   timeout=ECHO_TIMEOUT if adapter.line_oriented
                                   else CHECK_TIMEOUT)
            if not shown and not adapter.line_oriented:
                # Not in its input line: no Enter into whatever took it. Offer it again,
                # flagged, since where the text went cannot be known.
                log.warning("paste into %s did not show in its input line", pane)
                deliveries.release(self.conn, name, ids, possible_repeat=True)
                self._unsettled.discard(name)
                return []
            # A line-oriented program may not echo what it reads (it was idle, not asking,
            # and opted in): it gets its Enter either way.
            wait = keyboard.ENTER_DELAY - (time.monotonic() - pasted_at)
            if wait > 0:
                time.sleep(wait)  # prompt_toolkit treats an Enter inside a paste as text
            entering = True
            keyboard.press_enter(self.server, pane)
            self.on_step("entered")
        except Exception as error:  # any failure at all: the note goes back
            # Out of file descriptors (EMFILE), tmux gone, a store read: never left claimed.
            deliveries.release(self.conn, name, ids,
                               possible_repeat=typed_may_have_reached(error, entering))
            self._unsettled.discard(name)
            log.warning("could not type into %s (%s): queued again", pane, guard.reason(error))
            return []
        try:
            self._wait_for(adapter, pane, ours[0].id, present=False)
        except Exception as error:  # after the Enter, any failure at all
            # tmux took the Enter: the line is the agent's. Its pane or server dying while
            # the line leaves the input (the agent may have read it) must not re-offer it.
            log.warning("typed into %s, then lost sight of it: %s", pane, guard.reason(error))
        self.on_step("submitted")
        deliveries.told_overflow(self.conn, name, newest_capped)
        done = deliveries.confirm(self.conn, name, ids)
        self._unsettled.discard(name)
        return done

    def _settle(self, name: str, adapter: Adapter, snap: PaneSnapshot | None) -> None:
        """Decide `name`'s claims that a failed typing left (and could not put back), as
        after a crash: each is looked for in its pane before any later note is typed."""
        entered: set[str] = set()
        snapshots = {snap.pane_id: snap} if snap is not None else {}
        for note, delivery in deliveries.claimed(self.conn, name):
            self._decide(note, delivery, snapshots, adapter, entered)
        self._unsettled.discard(name)

    def _wait_for(self, adapter: Adapter, pane: str, note_id: int, present: bool,
                  timeout: float = CHECK_TIMEOUT) -> bool:
        """Wait until the note's header is (or is no longer) in the input line."""
        deadline = time.monotonic() + timeout
        while True:
            if in_input(adapter, self.server, pane, note_id) == present:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(CHECK_EVERY)

    # -- after a crash -------------------------------------------------------------------

    def recover(self, snapshots: Mapping[str, PaneSnapshot],
                adapters: Mapping[str, Adapter]) -> None:
        """Decide every claimed note left by a coordinator that died mid-delivery.

        `adapters` is by session name. Each claimed note is looked for in its pane."""
        entered: set[str] = set()
        for note, delivery in deliveries.claimed(self.conn):
            self._decide(note, delivery, snapshots, adapters.get(delivery.recipient), entered)

    def _decide(self, note: Note, delivery: deliveries.Delivery,
                snapshots: Mapping[str, PaneSnapshot], adapter: Adapter | None,
                entered: set[str]) -> None:
        """Typed, half typed or not: one claimed note, looked for in its pane."""
        pane_id, _, pid = (delivery.claim_pane or "").partition(":")
        snap = owned(dict(snapshots), pane_id, delivery.recipient)
        if snap is None or snap.dead or str(snap.pid) != pid:
            # The agent that may have seen it is gone: re-offer it, flagged.
            deliveries.release(self.conn, delivery.recipient, [note.id], possible_repeat=True)
            return
        try:
            self._recover_one(note, delivery.recipient, snap, adapter, entered)
        except (TmuxError, OSError) as error:
            log.warning("recovery of note %s: %s", note.id, error)
            deliveries.release(self.conn, delivery.recipient, [note.id], possible_repeat=True)

    def _recover_one(self, note: Note, recipient: str, snap: PaneSnapshot,
                     adapter: Adapter | None, entered: set[str]) -> None:
        adapter = adapter or GenericAdapter(opted_in=True)
        if in_input(adapter, self.server, snap.pane_id, note.id):
            # Pasted, never submitted: complete it, unless a question took the screen.
            text, x, y = keyboard.screen_now(self.server, snap.pane_id)
            screen = Screen.from_text(text, (x, y))
            if snap.pane_id in entered or adapter.read(screen).sign != Sign.QUESTION:
                if snap.pane_id not in entered:
                    keyboard.press_enter(self.server, snap.pane_id)
                    entered.add(snap.pane_id)
                deliveries.confirm(self.conn, recipient, [note.id])
            else:
                deliveries.release(self.conn, recipient, [note.id], possible_repeat=True)
            return
        if framing.typed_marker(note.id).search(keyboard.history(self.server, snap.pane_id)):
            deliveries.confirm(self.conn, recipient, [note.id])  # it was submitted
            return
        deliveries.release(self.conn, recipient, [note.id])  # it never reached the pane

