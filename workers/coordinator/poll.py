"""One pane tick: snapshot every pane (one tmux call), read each session's state with
its adapter and hook report, recover deliveries a crash left half done, deliver."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from board.connection import Connection
from board.models import Session
from workers.agents import agent_files
from workers.agents.adapter import Adapter, AgentState
from workers.agents.kinds import adapter_for
from workers.coordinator.delivery import Deliverer
from workers.coordinator.status import HookReport, PaneStatus, StatusTracker
from workers.tmux.panes import PaneSnapshot, owned
from workers.tmux.server import RoomServer
from workers.tmux.watch import PaneWatch


@dataclass
class Observation:
    """What one tick saw, by session name."""

    snapshots: dict[str, PaneSnapshot] = field(default_factory=dict)  # by pane id
    panes: dict[str, PaneSnapshot | None] = field(default_factory=dict)
    states: dict[str, PaneStatus | None] = field(default_factory=dict)
    adapters: dict[str, Adapter] = field(default_factory=dict)


def shown_state(state: PaneStatus | None) -> tuple[str, int | None, str | None]:
    """(status, exit code, reason) as `ls` shows them; no pane is `stopped`."""
    if state is None:
        return AgentState.STOPPED.value, None, None
    return state.status.value, state.exit_code, state.reason


class PanePoller:
    """Observes every running session's pane and delivers its notes."""

    def __init__(self, conn: Connection, server: RoomServer, tracker: StatusTracker,
                 deliverer: Deliverer, home: Path | None = None) -> None:
        self.conn = conn
        self.home = home  # where the agents' hooks leave what they ask
        self.server = server
        self.tracker = tracker
        self.deliverer = deliverer
        self._adapters: dict[tuple[str, str | None, str | None, str | None], Adapter] = {}
        self._recovered = False
        self.watch = PaneWatch(server)  # one control-mode client; polling without it

    def adapter(self, session: Session) -> Adapter:
        """The session's adapter (kept while its agent command and setting are the same)."""
        key = (session.name, session.agent, session.deliver, session.agent_version)
        if key not in self._adapters:
            adapter = adapter_for(session.agent or "sh", session.deliver)
            adapter.version = session.agent_version  # its own: adapter_for makes a new one
            self._adapters[key] = adapter
        return self._adapters[key]

    def observe(self, running: list[Session]) -> Observation:
        """Snapshot all panes once and decide each running session's state."""
        seen = Observation(snapshots=self.watch.snapshot())  # {} when tmux is down
        by_pane: dict[str, Adapter] = {}
        hooks: dict[str, HookReport] = {}
        for session in running:
            snap = owned(seen.snapshots, session.pane, session.name)
            seen.panes[session.name] = snap
            seen.adapters[session.name] = self.adapter(session)
            if snap is not None:
                by_pane[snap.pane_id] = seen.adapters[session.name]
                if session.hook_status and session.hook_status_at:
                    hooks[snap.pane_id] = HookReport(session.hook_status, session.hook_status_at,
                                                     self._question(session))
        states = self.tracker.update(seen.snapshots, by_pane, hooks)
        for session in running:
            snap = seen.panes[session.name]
            seen.states[session.name] = states.get(snap.pane_id) if snap else None
        if not self._recovered:
            self.deliverer.recover(seen.snapshots, seen.adapters)
            self._recovered = True
        return seen

    def quiet(self) -> bool:
        """No pane said anything since the last observation (see `PaneWatch.quiet`)."""
        return self.watch.quiet()

    def close(self) -> None:
        self.watch.close()

    def _question(self, session: Session) -> str | None:
        if self.home is None or session.hook_status != AgentState.NEEDS_INPUT:
            return None
        return agent_files.read_value(self.home, session.name, agent_files.QUESTION)

    def deliver(self, session: Session, seen: Observation) -> list[int]:
        """Type, hold or announce the session's waiting notes."""
        home = self.home

        def connecting() -> bool:
            return home is not None and agent_files.mcp_connecting(home, session.name)

        return self.deliverer.deliver(session, seen.adapters[session.name],
                                      seen.states.get(session.name), seen.panes.get(session.name),
                                      mcp_connecting=connecting)
