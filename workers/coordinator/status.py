"""Each pane's agent state from evidence: its screen, its foreground process, its hooks.

Pure logic over `PaneSnapshot`s, adapters and a clock, so it is tested with a fake clock
and captured screens. The rules (DESIGN.md, "Agent state"):

- a dead pane is `exited` (with its code); no pane is `stopped` (the caller's business);
- a question anywhere the adapter looks (a dialog, a permission prompt, a password, a
  yes/no) is `needs_input`, with the question line as the reason;
- a spinner or a busy input line is `working`; so is a screen that keeps changing —
  whatever a hook last said — except for the redraw a resize makes (no event, no flip);
- the agent's own prompt, still for the debounce, is `idle` — even when a hook last
  said `working` (after Esc, Claude's Stop hook never fires);
- another program in front of the agent (sudo, less, vim, a child) is never `idle`;
- a fresh `working` hook report keeps a still screen `working`; a hook's `idle` alone
  never makes a session idle (Hermes' side agents report idle mid-turn);
- until its prompt is first seen a new pane is `starting`; otherwise, with nothing
  recognised, `unknown` — never treated as idle;
- a program whose prompt is not known (generic) has as `input_text` what a human added
  to its cursor line (`cursor_line`), so nothing is typed onto it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from workers.agents.adapter import Adapter, AgentState, Reading, Screen, Sign
from workers.agents.readers.generic import GenericAdapter
from workers.coordinator.cursor_line import CursorLines
from workers.tmux.panes import PaneSnapshot

Status = AgentState  # the name the loop, `ls` and the dashboard have always used

DEBOUNCE = 1.5  # seconds a screen must stay unchanged before its prompt counts as idle
STARTUP = 30.0  # seconds a new pane may take to show its prompt before it is "unknown"
HOOK_FRESH = 600.0  # seconds a hook's `working` report holds a still screen as working
# A pane resized (an attach from another terminal, a zoom, a layout change) is redrawn
# by its program within this many seconds: that redraw is not the agent at work.
RESIZE_GRACE = 2.0


@dataclass(frozen=True)
class HookReport:
    """What an agent's own hook last said (`working`, `idle`, `needs_input`), at wall-clock
    `at`; `question` is what it asks, when it asks (Claude's permission hook)."""

    status: str
    at: float
    question: str | None = None


@dataclass(frozen=True)
class PaneStatus:
    """A pane's agent state with its evidence; `since` is when it entered the state.

    `reason` says why (the question for needs_input, what showed it busy, what is in
    front); `input_text` is the text in the agent's input line when its prompt is seen
    ("" for an empty prompt); `still_for` is how long the screen has not changed.
    """

    status: AgentState
    since: float
    exit_code: int | None = None
    reason: str | None = None
    input_text: str | None = None
    still_for: float = 0.0
    in_front: bool | None = None
    in_mode: bool = False

    @property
    def prompt(self) -> str | None:
        """The question line, for a session that needs input."""
        return self.reason if self.status == AgentState.NEEDS_INPUT else None


@dataclass
class _Seen:
    content_hash: str | None
    changed_at: float
    first_seen: float
    reading: Reading
    prompt_seen: bool
    status: PaneStatus
    adapter: Adapter | None = None  # the reader of `reading`
    size: tuple[int, int] = (0, 0)
    resized_at: float = float("-inf")


def screen_of(snap: PaneSnapshot) -> Screen:
    """The adapter's view of a snapshot's screen."""
    return Screen(snap.screen or snap.last_lines, snap.cursor_x, snap.cursor_y,
                  snap.alternate, snap.in_mode)


def _other_in_front(snap: PaneSnapshot, adapter: Adapter) -> bool:
    """Another program owns the pane's terminal: a child in the foreground, the
    alternate screen of a program that is not the agent, or (without /proc) a
    foreground command that is not one of the agent's programs."""
    if snap.in_front is False:
        return True
    if snap.alternate and not adapter.uses_alternate_screen:
        # The agent's own process in front on an alternate screen it never used before
        # (Claude Code 2.1.332 moved there): its screen is read, and if it is never
        # recognised the session is unknown, saying bullpen cannot read that release.
        return not (snap.in_front is True and adapter.prompt_known)
    return snap.in_front is None and bool(adapter.programs) and (
        snap.current_command not in adapter.programs)


def _exit_code(snap: PaneSnapshot) -> int | None:
    if snap.dead_status is None and snap.dead_signal is not None:
        return 128 + snap.dead_signal  # the shell's convention for a signal
    return snap.dead_status


class StatusTracker:
    """Turns one snapshot per tick into an evidenced state per pane."""

    def __init__(self, idle_after: float = DEBOUNCE, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time, startup: float = STARTUP) -> None:
        """`idle_after`: seconds of unchanged screen before a prompt counts as idle."""
        self.idle_after = idle_after
        self.clock = clock
        self.wall = wall
        self.startup = startup
        self._seen: dict[str, _Seen] = {}
        self._default = GenericAdapter()
        self._cursor_lines = CursorLines()

    def update(self, snapshots: Mapping[str, PaneSnapshot],
               adapters: Mapping[str, Adapter] | None = None,
               hooks: Mapping[str, HookReport] | None = None) -> dict[str, PaneStatus]:
        """Record one tick; return the state of every pane in `snapshots`.

        `adapters` and `hooks` are by pane id (a pane without an adapter is read as a
        generic program). Panes missing from `snapshots` are forgotten.
        """
        now = self.clock()
        for gone in set(self._seen) - set(snapshots):
            del self._seen[gone]
            self._cursor_lines.forget(gone)
        result: dict[str, PaneStatus] = {}
        for pane_id, snap in snapshots.items():
            adapter = (adapters or {}).get(pane_id, self._default)
            result[pane_id] = self._update_one(pane_id, snap, adapter,
                                               (hooks or {}).get(pane_id), now)
        return result

    def _update_one(self, pane_id: str, snap: PaneSnapshot, adapter: Adapter,
                    hook: HookReport | None, now: float) -> PaneStatus:
        seen = self._seen.get(pane_id)
        changed = seen is None or (snap.content_hash is not None
                                   and snap.content_hash != seen.content_hash)
        if changed or seen is None or seen.adapter is not adapter:
            reading = adapter.read(screen_of(snap)) if snap.content_hash or snap.screen \
                else Reading(Sign.NOTHING)
        else:
            reading = seen.reading  # same screen and reader: no regex work per tick
        size = (snap.width, snap.height)
        resized_at = float("-inf") if seen is None else (
            seen.resized_at if seen.size == size else now)
        redrawn = now - resized_at <= RESIZE_GRACE  # the screen changed with its size only
        changed_at = now if (changed and not redrawn) or seen is None else seen.changed_at
        first_seen = seen.first_seen if seen is not None else now
        prompt_seen = (seen.prompt_seen if seen is not None else False) or reading.sign in (
            Sign.PROMPT_EMPTY, Sign.PROMPT_TEXT, Sign.QUESTION, Sign.BUSY)
        starting = not prompt_seen and now - first_seen < self.startup
        state, reason = self._decide(snap, adapter, reading, now - changed_at, hook, starting,
                                     unread=not prompt_seen and not starting)
        prompt_seen = prompt_seen or state == AgentState.IDLE
        input_text = reading.detail or "" if reading.sign == Sign.PROMPT_TEXT else (
            "" if reading.sign == Sign.PROMPT_EMPTY else None)
        if not adapter.prompt_known:
            input_text = self._cursor_lines.human_text(pane_id, snap, changed,
                                                       self.wall()) or None
        exit_code = _exit_code(snap) if state == AgentState.EXITED else None
        previous = seen.status if seen is not None else None
        since = previous.since if previous is not None and previous.status == state else now
        current = PaneStatus(state, since, exit_code, reason, input_text, now - changed_at,
                             snap.in_front, snap.in_mode)
        if previous is not None and previous == current:
            current = previous
        content_hash = snap.content_hash
        if content_hash is None and seen is not None:
            content_hash = seen.content_hash  # not captured this tick: keep the last
        self._seen[pane_id] = _Seen(content_hash, changed_at, first_seen, reading,
                                    prompt_seen, current, adapter, size, resized_at)
        return current

    def _decide(self, snap: PaneSnapshot, adapter: Adapter, reading: Reading,
                still_for: float, hook: HookReport | None,
                starting: bool, unread: bool = False) -> tuple[AgentState, str | None]:
        """`unread`: the startup time is over and nothing on this pane's screen was ever
        recognised (no prompt, spinner or question): the agent is one bullpen cannot
        read, maybe a release whose screen changed."""
        if snap.dead:
            return AgentState.EXITED, None
        if reading.sign == Sign.QUESTION:
            asked = hook.question if hook is not None and hook.status == AgentState.NEEDS_INPUT \
                else None
            return AgentState.NEEDS_INPUT, asked or reading.detail  # the hook's words are exact
        still = still_for >= self.idle_after
        if _other_in_front(snap, adapter):
            front = snap.current_command or "another program"
            return (AgentState.UNKNOWN if still else AgentState.WORKING), f"{front} in front"
        if unread and adapter.prompt_known:
            return AgentState.UNKNOWN, adapter.unreadable_reason()
        if reading.sign == Sign.BUSY:
            return AgentState.WORKING, reading.detail
        if not still:
            return (AgentState.STARTING if starting else AgentState.WORKING), None
        if reading.sign in (Sign.PROMPT_EMPTY, Sign.PROMPT_TEXT):
            return AgentState.IDLE, None  # its own prompt held still beats a stale hook
        hook_working = hook is not None and hook.status == AgentState.WORKING and (
            self.wall() - hook.at < HOOK_FRESH)
        if hook_working:
            return AgentState.WORKING, "its hook reported a turn in progress"
        if not adapter.prompt_known:
            # No prompt is known for a generic program: in front, still and not asking
            # is the most that can be seen, and it is what `deliver: type` relies on.
            return AgentState.IDLE, "screen still (no prompt known for this program)"
        if starting:
            return AgentState.STARTING, None
        return AgentState.UNKNOWN, "its prompt is not on screen"

    def forget(self, pane_id: str) -> None:
        """Drop what is known about a pane (e.g. after it was respawned)."""
        self._seen.pop(pane_id, None)
        self._cursor_lines.forget(pane_id)
