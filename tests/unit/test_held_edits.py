"""Edits held while their checkout's git is at work (workers.coordinator.held_edits),
on a clock of the test's own."""

from __future__ import annotations

from pathlib import Path

from workers.coordinator.change_filter import INDEX_LOCK, Target
from workers.coordinator.held_edits import GIT_GRACE_MS, GIT_HOLD_LIMIT_MS, HeldEdits

GRACE, LIMIT = GIT_GRACE_MS / 1000, GIT_HOLD_LIMIT_MS / 1000


def test_held_edits_fall_due_after_the_grace_and_git_at_work_holds_them_longer() -> None:
    held = HeldEdits()
    held.hold("a", [], 100.0)
    assert not held  # nothing written: nothing held
    held.hold("a", ["src/app.py"], 100.0)
    assert held and held.due(100.0 + GRACE / 2) == {}
    held.hold("a", ["README.md"], 100.0 + GRACE / 2)  # git still at work: later
    assert held.due(100.0 + GRACE) == {}
    assert held.due(100.0 + 1.5 * GRACE) == {"a": ["README.md", "src/app.py"]}
    assert not held


def test_no_edit_is_held_past_the_limit_however_long_git_looks_at_work() -> None:
    """An index.lock a killed git left behind must not hold a checkout's edits for good."""
    held = HeldEdits()
    held.hold("a", ["src/app.py"], 100.0)
    for step in range(1, int(2 * LIMIT / GRACE)):  # git seen at work every half grace
        now = 100.0 + step * GRACE / 2
        assert held.due(now) == {}
        held.hold("a", [], now)
    assert held.due(100.0 + LIMIT) == {"a": ["src/app.py"]}


def test_a_head_move_or_a_report_takes_the_edits_out() -> None:
    held = HeldEdits()
    held.hold("a", ["src/app.py", "README.md"], 100.0)
    held.hold("b", ["src/app.py"], 100.0)
    held.told("a", ["README.md"])  # reported as a plain edit since
    assert held.of("a") == {"src/app.py"}
    held.release("a")  # its HEAD moved: taken into that move
    held.keep_only(["a"])  # b no longer watched
    assert not held and held.due(100.0 + LIMIT) == {}


def test_a_watch_waits_no_longer_than_until_the_next_edits_fall_due() -> None:
    held = HeldEdits(grace_ms=300)
    assert held.wait_ms(100.0, 1000) == 1000
    held.hold("a", ["src/app.py"], 100.0)
    assert held.wait_ms(100.0, 1000) == 300
    assert held.wait_ms(100.0, 200) == 200
    assert held.wait_ms(101.0, 1000) == 1  # overdue: 0 would mean wait for ever


def test_git_is_at_work_while_the_index_is_written_or_its_lock_held(tmp_path: Path) -> None:
    """A lock seen at the last look and gone now was held while this burst's files were
    written, though its release may fall in the next burst."""
    targets = [Target("main", tmp_path, tmp_path / "git"), Target("a", tmp_path / "a")]
    (tmp_path / "git").mkdir()
    held = HeldEdits()
    assert held.at_work(targets, set()) == set()
    assert held.at_work(targets, {"a"}) == {"a"}
    (tmp_path / "git" / INDEX_LOCK).touch()
    assert held.at_work(targets, set()) == {"main"} and held.locked("main")
    (tmp_path / "git" / INDEX_LOCK).unlink()
    assert held.at_work(targets, set()) == {"main"} and not held.locked("main")
    assert held.at_work(targets, set()) == set()
