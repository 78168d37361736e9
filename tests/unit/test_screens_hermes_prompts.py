"""Hermes' own prompts inside a turn: the clarify tool's question, the sudo password and a
skill's secret (fixtures tests/fixtures/screens/hermes_{clarify,sudo,secret}_*).

Enter in any of them answers Hermes (a choice, the password, the secret), so a note
typed there would be taken as the answer: each must read as needs_input with its
question, never idle, however long it stays still.
"""

from __future__ import annotations

import pytest

from tests.unit.test_screens import load, snapshot
from workers.agents.adapter import AgentState, Screen, Sign
from workers.agents.kinds import adapter_for
from workers.coordinator.status import StatusTracker

PROMPTS = {
    "hermes_clarify_choices": "Which database should the project use?",
    "hermes_clarify_open": "What should the release be called?",
    "hermes_sudo_password": "Sudo Password Required",
    "hermes_secret_prompt": "Enter value for TENOR_API_KEY",
}


@pytest.mark.parametrize("name", sorted(PROMPTS))
def test_a_hermes_prompt_held_still_needs_input_with_its_question(name: str) -> None:
    clock = [0.0]
    tracker = StatusTracker(idle_after=1.5, clock=lambda: clock[0], wall=lambda: clock[0])
    adapter = {"%1": adapter_for("hermes")}
    for _ in range(3):
        state = tracker.update({"%1": snapshot(name)}, adapter)["%1"]
        clock[0] += 60
    assert state.status is AgentState.NEEDS_INPUT, state
    assert PROMPTS[name] in (state.reason or ""), state


def _without_timer(name: str) -> Screen:
    """The fixture with the turn's timer gone from the status bar (a compact status bar,
    or the moment the turn's clock is not drawn): nothing says busy any more."""
    screen = load(name)
    lines = tuple(line.split("⏱")[0] for line in screen.lines)
    return Screen(lines, screen.cursor_x, screen.cursor_y, screen.alternate, screen.in_mode)


@pytest.mark.parametrize("name", sorted(PROMPTS))
def test_a_hermes_prompt_is_a_question_without_the_turns_timer(name: str) -> None:
    reading = adapter_for("hermes").read(_without_timer(name))
    assert reading.sign is Sign.QUESTION, reading


@pytest.mark.parametrize("name", sorted(PROMPTS))
def test_the_prompts_input_line_alone_is_never_an_empty_prompt(name: str) -> None:
    """The panel scrolled away or clipped (a short pane): the input line still carries
    the prompt's mark (`🔐 ❯`, `🔑 ❯`, `? ❯`, `✎ ❯`), and typing there answers it."""
    screen = load(name)
    lines = tuple(line for line in screen.lines if not line.lstrip().startswith(("╭", "│", "╰")))
    reading = adapter_for("hermes").read(
        Screen(lines, screen.cursor_x, len(lines) - 2, screen.alternate, screen.in_mode))
    assert reading.sign is Sign.QUESTION, reading


def test_a_prompts_mark_in_the_transcript_is_not_a_question() -> None:
    """A model's reply may quote `🔐 ❯`, even between rules: only the input line counts."""
    screen = load("hermes_idle")
    rule = "─" * 40
    quoted = (rule, "🔐 ❯ sudo was asked earlier", rule, "? ❯ and a menu", rule)
    lines = screen.lines[:21] + quoted + screen.lines[21 + len(quoted):]
    assert lines[-1] == screen.lines[-1] and lines[-3] == screen.lines[-3]
    reading = adapter_for("hermes").read(
        Screen(lines, screen.cursor_x, screen.cursor_y, screen.alternate, screen.in_mode))
    assert reading.sign is Sign.PROMPT_EMPTY, reading
