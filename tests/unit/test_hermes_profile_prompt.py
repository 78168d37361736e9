"""Hermes on a named profile (bullpen runs every Hermes on one) prefixes its prompt with
the profile's name; the adapter must still see its own empty prompt, and its busy line."""

from __future__ import annotations

from workers.agents.adapter import Screen, Sign
from workers.agents.hermes.adapter import HermesAdapter

RULE = "─" * 60


def screen(*lines: str) -> Screen:
    return Screen.from_text("\n".join(["Welcome to Hermes Agent!", *lines]))


def test_profile_prompt_is_its_own_empty_prompt() -> None:
    reading = HermesAdapter().read(screen(RULE, "bullpen-research ❯", RULE))
    assert reading.sign == Sign.PROMPT_EMPTY


def test_profile_prompt_with_text_is_text() -> None:
    reading = HermesAdapter().read(screen(RULE, "bullpen-research ❯ half typed", RULE))
    assert (reading.sign, reading.detail) == (Sign.PROMPT_TEXT, "half typed")


def test_profile_prompt_while_busy_is_busy() -> None:
    reading = HermesAdapter().read(screen(RULE, "bullpen-research ⚕ ❯ msg=interrupt", RULE))
    assert reading.sign == Sign.BUSY
