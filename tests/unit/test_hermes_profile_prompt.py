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


def test_a_long_dangerous_command_is_cut_in_the_question() -> None:
    """Hermes wraps a long command over box rows and cuts it at four; the question keeps
    160 characters of it, the reason and the choices (the countdown is left out)."""
    command = "rm -rf " + " ".join(f"build/part{n:02d}" for n in range(40))
    rows = [command[i:i + 44] for i in range(0, 132, 44)] + ["… (choose Show full command)"]
    box = ["╭" + "─" * 48 + "╮", "│ ⚠️  Dangerous Command" + " " * 26 + "│", "│" + " " * 48 + "│",
           *[f"│ {row:<46} │" for row in rows], "│" + " " * 48 + "│",
           *[f"│ {choice:<46} │" for choice in ("❯ 1. Allow once", "  2. Allow for this session",
                                                "  3. Add to permanent allowlist",
                                                "  4. Deny", "  5. Show full command")],
           "│" + " " * 48 + "│", f"│ {'recursive delete':<46} │", "╰" + "─" * 48 + "╯"]
    reading = HermesAdapter().read(screen(*box, "  ↑/↓ to select, Enter to confirm  (41s)",
                                          " ⚕ stub-model │ ⏱ 20s", RULE, "⚠ ❯", RULE))
    assert reading.sign == Sign.QUESTION
    asked = reading.detail or ""
    assert asked.startswith("Dangerous Command: rm -rf build/part00 ")
    assert asked.endswith(" (recursive delete): Allow once / Allow for this session / Add to"
                          " permanent allowlist / Deny / Show full command")
    assert "choose Show full command" not in asked and "41s" not in asked
