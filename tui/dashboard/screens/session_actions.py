"""Session actions: tmux and git through the injected `SessionActions`, in thread workers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from board import notes
from board.models import EVERYONE
from tui.dashboard.screens.prompt import Field, PromptScreen

if TYPE_CHECKING:
    from tui.dashboard.screens.main import MainScreen

SESSION_ACTIONS = {"focus_session", "zoom_session", "stop_session", "restart_session"}


class SessionActionsMixin:
    """Mixed into the main screen: focus, zoom, spawn, stop, restart, and notes."""

    def _session(self: MainScreen) -> str | None:
        name = self.sessions_table.selected
        if name is None:
            self.notify("no session selected", severity="warning")
        return name

    def action_focus_session(self: MainScreen) -> None:
        if name := self._session():
            self.run_session_action("focus", name, done=None)

    def action_zoom_session(self: MainScreen) -> None:
        if name := self._session():
            self.run_session_action("zoom", name, done=None)

    def action_stop_session(self: MainScreen) -> None:
        if name := self._session():
            self.run_session_action("stop", name, done=f"stopped {name}")

    def action_restart_session(self: MainScreen) -> None:
        if name := self._session():
            self.run_session_action("restart", name, done=f"restarted {name}")

    def action_spawn_session(self: MainScreen) -> None:
        fields = [Field("name", "Name", placeholder="lower-case, e.g. tester"),
                  Field("agent", "Agent command (optional)", placeholder="default from"
                        " bullpen.yaml"),
                  Field("task", "Task (optional)")]

        def spawn(answer: dict[str, str] | None) -> None:
            if answer is not None and answer["name"].strip():
                name = answer["name"].strip()
                self.run_session_action("spawn", name, agent=answer["agent"].strip() or None,
                                        task=answer["task"].strip() or None,
                                        done=f"spawned {name}")
        self.app.push_screen(PromptScreen("Spawn a session", fields), spawn)

    def action_compose(self: MainScreen) -> None:
        self._compose_to(self.sessions_table.selected or EVERYONE)

    def action_compose_all(self: MainScreen) -> None:
        self._compose_to(EVERYONE)

    def _compose_to(self: MainScreen, to: str) -> None:
        fields = [Field("to", "To (a session, 'all' or 'operator')", to), Field("text", "Note")]

        def send(answer: dict[str, str] | None) -> None:
            if answer is not None:
                self.write_store(notes.send, answer["to"].strip(), answer["text"])
        self.app.push_screen(PromptScreen("Send a note", fields, focus="text"), send)

    def action_filter_stream(self: MainScreen) -> None:
        current = self.stream.only
        selected = self.sessions_table.selected
        self.stream.narrow(None if current is not None or selected is None else selected)

    def action_toggle_preview(self: MainScreen) -> None:
        self.preview.display = not self.preview.display
        if self.preview.display:
            self.refresh_preview()
