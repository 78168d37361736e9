"""StatusTracker transitions, driven by a fake clock (no tmux, no sleeps)."""

from __future__ import annotations

from workers.coordinator.status import PaneStatus, Status, StatusTracker
from workers.tmux.panes import PaneSnapshot


class FakeClock:
    """A clock the test advances by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def snap(content: str | None, *, dead: bool = False, status: int | None = None,
         signal: int | None = None, lines: tuple[str, ...] = (),
         pane_id: str = "%1") -> dict[str, PaneSnapshot]:
    """One-pane snapshot dict with `content` standing in for the hash."""
    shot = PaneSnapshot(pane_id=pane_id, pid=10, dead=dead, dead_status=status,
                        current_command="agent", title="a", width=80, height=24,
                        content_hash=content, last_lines=lines, dead_signal=signal)
    return {pane_id: shot}


def tracker() -> tuple[StatusTracker, FakeClock]:
    clock = FakeClock()
    return StatusTracker(idle_after=1.5, clock=clock), clock


def test_first_sight_is_working_then_idle_after_the_debounce() -> None:
    t, clock = tracker()
    assert t.update(snap("h1"))["%1"].status is Status.WORKING
    clock.now += 1.0
    assert t.update(snap("h1"))["%1"].status is Status.WORKING
    clock.now += 0.5
    idle = t.update(snap("h1"))["%1"]
    assert idle == PaneStatus(Status.IDLE, since=101.5)


def test_change_resets_the_debounce() -> None:
    t, clock = tracker()
    t.update(snap("h1"))
    clock.now += 2
    assert t.update(snap("h1"))["%1"].status is Status.IDLE
    clock.now += 0.1
    assert t.update(snap("h2"))["%1"].status is Status.WORKING
    clock.now += 1.4
    assert t.update(snap("h2"))["%1"].status is Status.WORKING
    clock.now += 0.1
    assert t.update(snap("h2"))["%1"].status is Status.IDLE


def test_since_is_kept_while_the_status_holds() -> None:
    t, clock = tracker()
    t.update(snap("h1"))
    clock.now += 2
    first = t.update(snap("h1"))["%1"]
    clock.now += 5
    assert t.update(snap("h1"))["%1"].since == first.since == 102.0


def test_prompt_in_last_lines_means_needs_input_once_output_settles() -> None:
    t, clock = tracker()
    lines = ("Run `rm build/`?", "Do you want to proceed? (y/n)")
    assert t.update(snap("h1", lines=lines))["%1"].status is Status.WORKING
    clock.now += 0.2
    status = t.update(snap("h1", lines=lines))["%1"]
    assert status.status is Status.NEEDS_INPUT
    assert status.prompt == "Do you want to proceed? (y/n)"
    clock.now += 10
    assert t.update(snap("h1", lines=lines))["%1"].status is Status.NEEDS_INPUT


def test_each_prompt_pattern_is_recognised() -> None:
    t, _ = tracker()
    for line in ("Overwrite? [Y/n]", "Continue (yes/no)", "Allow this tool?",
                 "approve or deny", "Press Enter to continue", "Delete? (y/n)"):
        assert t.prompt_in((line,)) == line, line


def test_prose_is_not_a_prompt() -> None:
    t, _ = tracker()
    assert t.prompt_in(("we allow empty lists here", "done.")) is None


def test_old_prompts_above_the_last_lines_are_ignored() -> None:
    t, clock = tracker()
    lines = ("Proceed? (y/n)", "y", "ok", "working on it", "done", "agent>")
    t.update(snap("h1", lines=lines))
    clock.now += 2
    assert t.update(snap("h1", lines=lines))["%1"].status is Status.IDLE


def test_dead_pane_is_exited_with_its_code() -> None:
    t, clock = tracker()
    t.update(snap("h1"))
    clock.now += 0.3
    status = t.update(snap("h2", dead=True, status=3))["%1"]
    assert status == PaneStatus(Status.EXITED, since=100.3, exit_code=3)


def test_killed_pane_reports_128_plus_signal_once_reaped() -> None:
    t, clock = tracker()
    early = t.update(snap("h1", dead=True))["%1"]
    assert (early.status, early.exit_code) == (Status.EXITED, None)
    clock.now += 0.1
    assert t.update(snap("h1", dead=True, signal=9))["%1"].exit_code == 137


def test_missing_capture_keeps_the_last_hash() -> None:
    t, clock = tracker()
    t.update(snap("h1"))
    clock.now += 1
    t.update(snap(None))
    clock.now += 1
    assert t.update(snap("h1"))["%1"].status is Status.IDLE


def test_vanished_panes_are_forgotten() -> None:
    t, clock = tracker()
    t.update(snap("h1"))
    clock.now += 2
    assert t.update({}) == {}
    assert t.update(snap("h1"))["%1"].status is Status.WORKING


def test_panes_are_tracked_independently() -> None:
    t, clock = tracker()
    both = {**snap("a1", pane_id="%1"), **snap("b1", pane_id="%2")}
    t.update(both)
    clock.now += 2
    statuses = t.update({**snap("a1", pane_id="%1"), **snap("b2", pane_id="%2")})
    assert statuses["%1"].status is Status.IDLE
    assert statuses["%2"].status is Status.WORKING
