"""`loop_guard:` in bullpen.yaml: defaults, values, off, and bad values named by line."""

from __future__ import annotations

from pathlib import Path

import pytest

from board.chains import Limits
from board.errors import BadInput
from workers.room.config import load


def _load(tmp_path: Path, text: str) -> Limits:
    (tmp_path / "bullpen.yaml").write_text(text)
    return load(tmp_path).loop_guard


def test_absent_section_keeps_the_defaults(tmp_path: Path) -> None:
    assert _load(tmp_path, "sessions:\n  a: {}\n") == Limits(notes=12, rate=20, per=60)


@pytest.mark.parametrize(("text", "expected"), [
    ("loop_guard: {notes: 6}", Limits(notes=6, rate=20, per=60)),
    ("loop_guard: {rate: 5/s}", Limits(notes=12, rate=5, per=1)),
    ("loop_guard: {rate: 300/h, notes: off}", Limits(notes=None, rate=300, per=3600)),
    ("loop_guard: {rate: 30}", Limits(notes=12, rate=30, per=60)),
    ("loop_guard:\n  rate: 'off'\n", Limits(notes=12, rate=None, per=60)),
])
def test_values_and_off(tmp_path: Path, text: str, expected: Limits) -> None:
    assert _load(tmp_path, text) == expected


@pytest.mark.parametrize(("text", "message"), [
    ("loop_guard:\n  notes: 0\n", "bullpen.yaml:2: loop_guard.notes: expected a whole number"),
    ("loop_guard:\n  rate: fast\n", "bullpen.yaml:2: loop_guard.rate: expected notes per time"),
    ("loop_guard:\n  rate: 0/min\n", "bullpen.yaml:2: loop_guard.rate: expected notes per"),
    ("loop_guard:\n  pairs: 3\n", "bullpen.yaml:2: loop_guard.pairs: unknown key; use notes,"),
    ("loop_guard: 12\n", "bullpen.yaml:1: loop_guard: expected a mapping"),
])
def test_bad_values_name_the_line_and_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(BadInput) as raised:
        _load(tmp_path, text)
    assert str(raised.value).startswith(message)


def test_the_limits_travel_through_the_store_as_a_mark() -> None:
    for limits in (Limits(), Limits(notes=None, rate=3, per=1), Limits(notes=4, rate=None)):
        assert Limits.from_mark(limits.to_mark()) == limits
    assert Limits.from_mark(None) == Limits() == Limits.from_mark("garbage")
