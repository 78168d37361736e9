"""Screen readers against screens captured from real programs (tests/fixtures/screens).

Each fixture is a real capture (see the README there); each row says which adapter
reads it and what it must see. A reader that mistakes a dialog for a prompt would
let bullpen type an answer for the user — these rows are the guard.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workers.agents.adapter import Screen, Sign
from workers.agents.kinds import adapter_for

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "screens"

# fixture name -> (agent command, what the reader must see, text in its detail)
EXPECTED: dict[str, tuple[str, Sign, str | None]] = {
    "claude_idle": ("claude", Sign.PROMPT_EMPTY, None),
    "claude_idle_after_esc_cleared": ("claude", Sign.PROMPT_EMPTY, None),
    "claude_half_typed": ("claude", Sign.PROMPT_TEXT, "half typed"),
    "claude_after_esc": ("claude", Sign.PROMPT_TEXT, "say hi"),
    "claude_busy": ("claude", Sign.BUSY, "Photosynthesizing"),
    "claude_busy_later": ("claude", Sign.BUSY, "Photosynthesizing"),
    "claude_trust_dialog": ("claude", Sign.QUESTION, "Is this a project you created"),
    "claude_api_key_dialog": ("claude", Sign.QUESTION, "Do you want to use this API key?"),
    "claude_bypass_dialog": ("claude", Sign.QUESTION, "Bypass Permissions mode"),
    "claude_permission_prompt": ("claude", Sign.QUESTION, "Do you want to proceed?"),
    "hermes_idle": ("hermes", Sign.PROMPT_EMPTY, None),
    "hermes_idle_after_turn": ("hermes", Sign.PROMPT_EMPTY, None),
    "hermes_half_typed": ("hermes", Sign.PROMPT_TEXT, "half typed"),
    "hermes_busy": ("hermes", Sign.BUSY, None),
    "hermes_busy_queue_typed": ("hermes", Sign.BUSY, None),
    "hermes_busy_queued": ("hermes", Sign.BUSY, None),
}


def load(name: str) -> Screen:
    """A fixture: a JSON header line (cursor, alternate), then the captured text."""
    header, text = (FIXTURES / f"{name}.screen").read_text().split("\n", 1)
    meta = json.loads(header)
    return Screen.from_text(text, tuple(meta["cursor"]), meta["alternate"])


def test_every_fixture_has_an_expectation() -> None:
    captured = {path.stem for path in FIXTURES.glob("*.screen")}
    assert captured == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_reader_sees_what_the_program_showed(name: str) -> None:
    command, sign, detail = EXPECTED[name]
    reading = adapter_for(command).read(load(name))
    assert reading.sign is sign, reading
    if detail is not None:
        assert detail in (reading.detail or ""), reading
