"""The session verbs the dashboard offers, over the room's tmux server and worktrees.

Every method blocks on tmux or git: the dashboard calls them from thread workers.
"""

from __future__ import annotations

from pathlib import Path

from board import sessions
from board.errors import BadInput
from workers.room import config, lifecycle
from workers.room import spawn as launcher
from workers.tmux import layout
from worktrees.status import worktree_status


class RoomControl:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.root = home.parent
        self.server = layout.server_for(self.root)

    def _pane(self, name: str) -> str:
        with launcher.open_operator_room(self.home) as room:
            session = sessions.require(room.conn, name)
        if not layout.owns_pane(self.server, session.pane, name):
            raise BadInput(f"{name} has no pane; restart it first")
        return session.pane

    def focus(self, name: str) -> None:
        """Move tmux focus to the session's pane (its window becomes current)."""
        self.server.select_pane(self._pane(name))

    def zoom(self, name: str) -> None:
        """Toggle the session's pane between zoomed and its place in the layout."""
        pane = self._pane(name)
        zoomed = self.server.check("display-message", "-p", "-t", pane,
                                   "#{window_zoomed_flag}").strip() == "1"
        self.server.select_pane(pane)
        self.server.zoom_pane(pane, zoomed=not zoomed)

    def capture(self, name: str) -> str:
        return self.server.capture(self._pane(name))

    def spawn(self, name: str, agent: str | None = None, task: str | None = None) -> None:
        plan = config.load(self.root)
        request = launcher.SpawnRequest(name=name, agent=agent or plan.agent, task=task)
        launcher.spawn(self.home, request, server=self.server, layout_name=plan.layout)
        lifecycle.ensure_coordinator(self.server, self.home)

    def stop(self, name: str) -> None:
        launcher.stop(self.home, name, server=self.server)

    def restart(self, name: str) -> None:
        launcher.restart(self.home, name, server=self.server)
        lifecycle.ensure_coordinator(self.server, self.home)

    def keep_coordinator(self) -> bool:
        """Restart a dead coordinator while the room's tmux server runs; True if it did."""
        from workers.coordinator.loop import is_running

        if is_running(self.home) or not self.server.has_session(layout.ROOM_SESSION):
            return False
        return lifecycle.ensure_coordinator(self.server, self.home)

    def show_attention(self, count: int) -> None:
        """"N need you" on the right of the room's tmux status line (cleared at 0)."""
        text = f"#[fg=black,bg=yellow,bold] {count} need you #[default]" if count else ""
        self.server.check("set-option", "-t", layout.ROOM_SESSION, "status-right", text)

    def _worktree(self, name: str) -> tuple[Path, str | None]:
        with launcher.open_operator_room(self.home) as room:
            session = sessions.require(room.conn, name)
        if not session.worktree or not Path(session.worktree).is_dir():
            raise BadInput(f"{name} has no worktree on disk; see bullpen ls")
        return Path(session.worktree), session.base

    def diff(self, name: str) -> str:
        """What `bullpen diff NAME` prints: commits since the base and uncommitted edits."""
        from worktrees.changes import session_diff

        return session_diff(*self._worktree(name))

    def changed_paths(self, name: str) -> list[str]:
        """The uncommitted files in the session's worktree."""
        path, base = self._worktree(name)
        return list(worktree_status(path, base).changed_files)

    def changed_files(self, name: str) -> int | None:
        with launcher.open_operator_room(self.home) as room:
            session = sessions.get(room.conn, name)
        if session is None or not session.worktree or not Path(session.worktree).is_dir():
            return None
        return len(worktree_status(session.worktree, session.base).changed_files)
