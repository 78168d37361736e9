"""What waits on the human, as the needs-you strip lists it (plain Python, no Textual).

Built from what the screen already holds (session rows, cards, alerts, held notes), so
it costs no query of its own: levers that do not hold first (a session whose agent's
release cannot enforce the deny list, a budget on a spend bullpen cannot read), then
the coordinator's trouble (the store not writable, with
the reason, as `bullpen ls` prints it), sessions that need input (with their question),
conversations the loop guard holds (one line per chain, with how to release or
end it), sessions at their budget (one line each: what they spent, how many notes wait,
the command that raises it), notes held back from a pane (with the reason), blocked
tasks (with theirs), and change alerts the reader has not been told about yet.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from board import budgets
from board.attention import HeldNote
from board.models import Task
from board.views import AlertRow
from board.vocabulary import CANNOT_READ, DeliveryState, HoldReason, SessionStatus, TaskStatus
from tui.dashboard.feed import RoomDelta, SessionRow

LOOP_PREFIX = "loop suspected — "  # the strip's label says it already
UNSEEN_ALERT_STATES = frozenset({DeliveryState.QUEUED, DeliveryState.HELD,
                                 DeliveryState.CLAIMED})
# Held for a reason that clears without the human: a session waiting for a slot under
# max_running gets its notes when it starts (its row says `waiting for a slot`).
SELF_CLEARING = frozenset({HoldReason.WAITING_FOR_SLOT})


class NeedKind(StrEnum):
    """What a need is, most urgent first."""

    LEVER = "lever"  # a lever that does not hold: deny not enforced, a budget blind
    COORDINATOR = "coordinator"  # it reports trouble (the store not writable)
    UNREADABLE = "unreadable"  # bullpen cannot read a session's agent (a changed release)
    INPUT = "input"  # a session asks a question
    BUDGET = "budget"  # a session at its budget: its notes and pings are held
    LOOP = "loop"  # a conversation the loop guard holds (agents talking in circles)
    HELD = "held"  # a note held back from a pane
    BLOCKED = "blocked"  # a blocked task
    ALERT = "alert"  # a change alert its reader has not been told


@dataclass(frozen=True)
class Need:
    """One thing that waits on the human; `session` is the pane `enter` focuses."""

    key: tuple[object, ...]  # stable identity: a new key rings the bell once
    kind: NeedKind
    text: str
    session: str | None = None
    task: int | None = None
    chain: int | None = None  # a held conversation (r releases it, x ends it)


def needs_you(rows: Iterable[SessionRow], cards: Iterable[Task], alerts: Iterable[AlertRow],
              held: Iterable[HeldNote], coordinator: str | None = None,
              blocked: Sequence[Need] | None = None) -> list[Need]:
    """Everything that waits on the human, most urgent kind first. `coordinator`: the
    running coordinator's trouble (e.g. "store not writable — disk full"), if any;
    `blocked`: the blocked cards' needs already made (`blocked_needs(cards)`)."""
    held = list(held)
    rows = list(rows)
    found = [Need((NeedKind.LEVER, row.session.name, lever), NeedKind.LEVER,
                  f"{row.session.name}: {lever}", session=row.session.name)
             for row in rows for lever in (*row.levers, *filter(None, [row.budget_blind]))]
    found += ([Need((NeedKind.COORDINATOR, coordinator), NeedKind.COORDINATOR, coordinator)]
              if coordinator else [])
    found += [Need((NeedKind.UNREADABLE, row.session.name, row.reason), NeedKind.UNREADABLE,
                   f"{row.session.name}: {row.reason}", session=row.session.name)
              for row in rows if row.session.status == SessionStatus.UNKNOWN
              and (row.reason or "").startswith(CANNOT_READ)]
    found += [Need((NeedKind.INPUT, row.session.name, row.reason), NeedKind.INPUT,
                   f"{row.session.name} asks: {row.reason}" if row.reason
                   else f"{row.session.name} needs input", session=row.session.name)
              for row in rows if row.session.status == SessionStatus.NEEDS_INPUT]
    found += [Need((NeedKind.LOOP, item.chain), NeedKind.LOOP,
                   f"chain {item.chain}: {(item.reason or '').removeprefix(LOOP_PREFIX)}"
                   f" · {item.count} held · note release|end {item.chain}",
                   session=item.recipient, chain=item.chain)
              for item in held if item.chain is not None]
    held = [item for item in held if item.chain is None]
    waiting = Counter(item.recipient for item in held if item.reason == HoldReason.BUDGET)
    found += [Need((NeedKind.BUDGET, row.session.name, row.over_budget), NeedKind.BUDGET,
                   f"{row.session.name}: {row.over_budget} · {waiting[row.session.name]} held"
                   f" · {budgets.raise_command(row.session.name, row.over_budget)}",
                   session=row.session.name)
              for row in rows if row.over_budget]
    held = [item for item in held if item.reason != HoldReason.BUDGET]
    unseen = [row for row in alerts if row.state in UNSEEN_ALERT_STATES]
    # An alert's own note held back is one thing waiting, not two: it shows as the alert.
    # Keyed as an alert names its note, which it may lack (`None` is never held).
    held_reasons: dict[tuple[int | None, str], str | None] = {
        (item.note.id, item.recipient): item.reason for item in held}
    alerted = {(row.alert.note, row.alert.session) for row in unseen}
    found += [Need((NeedKind.HELD, item.note.id, item.recipient), NeedKind.HELD,
                   f"note #{item.note.id} {item.note.sender} → {item.recipient} held"
                   + (f": {item.reason}" if item.reason else ""), session=item.recipient)
              for item in held if (item.note.id, item.recipient) not in alerted
              and item.reason not in SELF_CLEARING]
    found += blocked_needs(cards) if blocked is None else blocked
    found += [Need((NeedKind.ALERT, row.alert.id), NeedKind.ALERT,
                   f"{row.alert.path} changed by {row.alert.changed_by};"
                   f" {row.alert.session} not told yet"
                   + (f" (held: {reason})" if (reason := held_reasons.get(
                       (row.alert.note, row.alert.session))) else ""),
                   session=row.alert.session)
              for row in unseen]
    return found


def blocked_needs(cards: Iterable[Task]) -> list[Need]:
    """A need for each blocked card."""
    return [Need((NeedKind.BLOCKED, card.id), NeedKind.BLOCKED,
                 f"#{card.id} {card.title} blocked"
                 + (f": {card.block_reason}" if card.block_reason else ""),
                 session=card.assignee, task=card.id)
            for card in cards if card.status == TaskStatus.BLOCKED]


class Attention:
    """What the strip is built from, kept between deltas, and what was already shown
    (a need rings the bell once, when it first appears)."""

    def __init__(self) -> None:
        self.rows: list[SessionRow] = []
        self.alerts: list[AlertRow] = []
        self.held: list[HeldNote] = []
        self.coordinator: str | None = None  # its state line, when it is in trouble
        self._shown: set[tuple[object, ...]] = set()
        self._count: int | None = None
        # The blocked cards' needs, made again only when those cards change: a room
        # with hundreds of blocked cards spent ms on them each time a session row moved.
        self._blocked_cards: tuple[Task, ...] = ()
        self._blocked: list[Need] = []

    def update(self, delta: RoomDelta) -> bool:
        """Take the parts of `delta` the strip depends on besides the blocked cards (the
        screen knows when those moved); True when any changed."""
        changed = delta.initial
        if delta.sessions is not None and delta.sessions != self.rows:
            self.rows, changed = delta.sessions, True
        if delta.alerts is not None and delta.alerts != self.alerts:
            self.alerts, changed = delta.alerts, True
        if delta.held is not None and delta.held != self.held:
            self.held, changed = delta.held, True
        return changed

    def needs(self, blocked: Iterable[Task]) -> list[Need]:
        """The strip's needs now, with these blocked cards."""
        cards = tuple(blocked)
        if cards != self._blocked_cards:  # the same card objects compare by identity
            self._blocked_cards, self._blocked = cards, blocked_needs(cards)
        return needs_you(self.rows, cards, self.alerts, self.held, self.coordinator,
                         blocked=self._blocked)

    def set_coordinator(self, state: str | None) -> bool:
        """Take the coordinator's state line; True when it changed."""
        changed, self.coordinator = state != self.coordinator, state
        return changed

    def fresh(self, needs: list[Need]) -> list[Need]:
        """The needs not shown last time (remembering these as shown)."""
        new = [need for need in needs if need.key not in self._shown]
        self._shown = {need.key for need in needs}
        return new

    def count_changed(self, count: int) -> bool:
        """True when `count` differs from the count last reported."""
        changed, self._count = count != self._count, count
        return changed
