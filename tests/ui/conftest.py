"""Fixtures for the dashboard tests: a room with fake data, fake session actions, UTC."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from board.room import Room
from tests.ui.fakes import (
    BASE_TIME,
    FakeActions,
    demo_flows,
    populate,
    populate_demo,
    populate_team,
)


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> None:
    """Render times in UTC so snapshots do not depend on the machine's zone."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


@pytest.fixture(autouse=True)
def pinned_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ages ("5m") count from an hour after the fake data's base time."""
    from tui.dashboard import format

    monkeypatch.setattr(format, "now", lambda: BASE_TIME + 3600)


@pytest.fixture
def fake_actions() -> FakeActions:
    return FakeActions()


@pytest.fixture
def fake_room(room: Room) -> Room:
    """The operator's room holding the fake data set."""
    populate(room.conn)
    return room


@pytest.fixture
def team_room(room: Room) -> Room:
    """The operator's room holding issue 14's data set (see `populate_team`)."""
    populate_team(room.conn)
    return room


@pytest.fixture
def home(room: Room) -> Path:
    return room.home


@pytest.fixture
def demo_room(room: Room) -> Room:
    """The operator's room as `bullpen demo` leaves it (see `populate_demo`)."""
    populate_demo(room.conn)
    return room


@pytest.fixture
def demo_actions() -> FakeActions:
    """Fake actions saying where the demo's sessions' code stands."""
    actions = FakeActions()
    actions.flows = demo_flows()
    return actions
