"""aider's adapter: its screen (`screen`); launched as it is, with no hooks bullpen uses."""

from __future__ import annotations

from workers.agents.aider.screen import AiderScreen


class AiderAdapter(AiderScreen):
    line_oriented = True  # a line REPL: its input is the line the cursor is on
    says_version = True  # not run by the tests: bullpen knows no release of it


ADAPTER = AiderAdapter
