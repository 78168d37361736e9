"""Waiting for eventually-true conditions in tests: poll with a deadline, never sleep blind."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(predicate: Callable[[], T], timeout: float = 5.0, interval: float = 0.02,
               message: str | Callable[[], str] = "condition") -> T:
    """Return the first truthy value of `predicate()`; AssertionError after `timeout` s.

    `message` (or a callable producing it, for showing the latest state) names what was
    awaited in the failure.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            text = message() if callable(message) else message
            raise AssertionError(f"timed out after {timeout:.1f}s waiting for {text}")
        time.sleep(interval)


def wait_for_text(capture: Callable[[], str], needle: str, timeout: float = 5.0) -> str:
    """Wait until `needle` appears in `capture()` (e.g. a pane's screen); return that text."""
    seen = ""

    def found() -> bool:
        nonlocal seen
        seen = capture()
        return needle in seen

    wait_until(found, timeout, message=lambda: f"{needle!r} in:\n{seen}")
    return seen
