"""Landing from the dashboard (`L` on a session): read what it would do, ask, then land
in a thread worker while the land screen shows the check's progress and its outcome.

A base of MainScreen (Textual finds these `on_…` handlers on any class of the screen's
MRO); every step that blocks is a job (`Jobs.prepare_landing`, `Jobs.land`)."""

from __future__ import annotations

from textual.screen import Screen

from tui.dashboard.jobs import Jobs
from tui.dashboard.landing import LandProgress
from tui.dashboard.messages import LandFinished, LandingPrepared
from tui.dashboard.screens.confirm import ConfirmScreen
from tui.dashboard.screens.land import LandScreen
from tui.dashboard.widgets.sessions_table import SessionsTable

SHOWN_CHANGES = 8  # rule changes listed in the question (it must fit an 80x24 terminal)


class LandingRequests(Screen[None]):
    """The land key's request, its question, and the landing's outcome."""

    jobs: Jobs
    landing: LandProgress | None = None  # the newest landing (one runs at a time)

    def on_sessions_table_land_requested(self, message: SessionsTable.LandRequested) -> None:
        if self.landing is not None and self.landing.outcome is None:
            self.notify(f"{self.landing.session} is landing now; one landing at a time",
                        severity="warning")
            return
        self.jobs.prepare_landing(message.name)

    def on_landing_prepared(self, message: LandingPrepared) -> None:
        preview = message.preview
        name, into, code = preview.session, preview.base_branch, preview.code
        if code.ahead == 0:
            self.notify(f"{name}: nothing to land, {into} already holds its branch",
                        title="refused", severity="error")
            return
        if preview.rules_unreadable:
            self.notify(preview.rules_unreadable, title="refused", severity="error")
            return
        state = code.summary or (f"{code.ahead} commit{'s' if code.ahead != 1 else ''}"
                                 f" {into} lacks; its task is not done yet")
        check = (f"then the check runs there: {preview.check}" if preview.check
                 else "no check is set (land.check in bullpen.yaml)")
        detail = (f"{name}: {state}\n"
                  f"The {preview.strategy} is built in a temporary worktree, {check}.\n"
                  f"Only when both succeed does {into} move; a conflict or a failing"
                  " check changes nothing.")
        changes = preview.rule_changes
        question, yes = f"Land {name} on {into}?", "land"
        if changes:
            # The rules are the operator's: say each change, and land only these.
            question = f"Land {name} on {into}? It changes the room's rules"
            lines = [f"  {change}" for change in changes[:SHOWN_CHANGES]]
            if len(changes) > SHOWN_CHANGES:
                lines.append(f"  and {len(changes) - SHOWN_CHANGES} more (git diff"
                             f" {into}...{preview.branch} --"
                             f" {' '.join(sorted({change.file for change in changes}))})")
            detail += (f"\n\n{name} changes the room's rules:\n"
                       + "\n".join(lines)
                       + "\nYes lands it with these changes (as --allow-config).")
            yes = "land and accept these rules"

        def answered(yes: bool | None) -> None:
            if yes:
                self.landing = LandProgress(name)
                self.app.push_screen(LandScreen(self.landing, into, preview.check))
                self.jobs.land(self.landing, changes)
        self.app.push_screen(ConfirmScreen(question, detail, yes=yes), answered)

    def on_land_finished(self, message: LandFinished) -> None:
        outcome = message.outcome
        shown = self.app.screen
        if isinstance(shown, LandScreen) and shown.progress.session == outcome.session:
            shown.finished(outcome)
        elif outcome.landed:
            self.notify(outcome.text)
        else:
            self.notify(outcome.text, title="refused", severity="error")
        self.jobs.load_code()
