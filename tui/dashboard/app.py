"""`bullpen dashboard`: the Textual app. Composes the main screen and global bindings only."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from tui.dashboard.actions import RuntimeActions, SessionActions
from tui.dashboard.commands import COMMANDS
from tui.dashboard.keys import key_names, key_rows
from tui.dashboard.screens.confirm import ConfirmScreen
from tui.dashboard.screens.main import MainScreen


class DashboardApp(App[None]):
    """The human's view of the room; closing it stops nothing."""

    CSS_PATH = Path(__file__).with_name("dashboard.tcss")  # absolute: subclasses elsewhere
    TITLE = "bullpen"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (130, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]
    BINDINGS = [Binding("q", "close_dashboard", "Close", id="app.quit",
                        tooltip="Close the dashboard (asks; the room keeps running)")]

    def __init__(self, home: Path, actions: SessionActions, bell: bool = True) -> None:
        super().__init__()
        self.home = home
        self.actions = actions
        self.ring_bell = bell

    def get_default_screen(self) -> Screen:
        return MainScreen(self.home, self.actions, bell=self.ring_bell)

    def action_close_dashboard(self) -> None:
        """Ask first: a stray `q` should not take the dashboard away."""
        def answered(yes: bool | None) -> None:
            if yes:
                self.exit()
        self.push_screen(ConfirmScreen(
            "Close the dashboard?",
            "The room keeps running: sessions, notes and the coordinator.\n"
            "bullpen up (or bullpen attach) brings the dashboard back here.",
            yes="close"), answered)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Every dashboard action in the command palette, with its key, plus Textual's
        own."""
        if isinstance(screen, MainScreen):
            for command in COMMANDS:
                yield SystemCommand(f"{command.title}  ({key_names(command.keys)})",
                                    command.help,
                                    lambda command=command: screen.run_command(command))
        # Textual's Quit would skip the question; its Screenshot saves where a fresh HOME
        # has no folder (it failed): both are replaced by ones that work here.
        ours = {"Quit": SystemCommand("Close the dashboard  (q)", "Ask, then close it (the room"
                                      " keeps running)", self.action_close_dashboard),
                "Screenshot": SystemCommand("Screenshot", "Save an SVG of the screen in"
                                            " .bullpen/screenshots/", self.action_snapshot)}
        for offered in super().get_system_commands(screen):
            yield ours.get(offered.title, offered)

    def action_help(self) -> None:
        """Every key, panel by panel (the rows of docs/dashboard.md's key table)."""
        from tui.dashboard.screens.help import HelpScreen

        self.push_screen(HelpScreen([(row.panel, row.keys, row.does)
                                     for row in key_rows(type(self))]))

    def action_snapshot(self) -> None:
        """Save an SVG of the screen in the room's own folder and say where."""
        folder = self.home / "screenshots"
        folder.mkdir(exist_ok=True)
        self.notify(f"saved {self.save_screenshot(path=str(folder))}")


def make_app(home: Path, actions: SessionActions | None = None,
             bell: bool | None = None) -> DashboardApp:
    """The dashboard for the room at `home` (a `.bullpen` directory); the one factory for the
    CLI, the tests and the bench. Without `actions`, sessions are driven by the real runtime.
    `bell` (default: on unless BULLPEN_BELL=off) rings once for each new need."""
    if bell is None:
        bell = os.environ.get("BULLPEN_BELL", "on").lower() not in ("off", "0", "no")
    return DashboardApp(Path(home), actions if actions is not None else RuntimeActions(home),
                        bell)
