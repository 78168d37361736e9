"""The Textual dashboard (imported only by `bullpen dashboard`, never by other commands)."""

from tui.dashboard.app import DashboardApp, make_app

__all__ = ["DashboardApp", "make_app"]
