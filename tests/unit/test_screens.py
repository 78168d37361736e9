"""Screen readers against screens captured from real programs (tests/fixtures/screens).

Each fixture is a real capture (see the README there); each row says which adapter
reads it and what it must see. A reader that mistakes a dialog for a prompt would
let bullpen type an answer for the user — these rows are the guard.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agents.claude_dialogs import KNOWN_NOTICES, NOTICE, dialog_kind
from workers.agents.adapter import AgentState, Screen, Sign
from workers.agents.kinds import adapter_for
from workers.coordinator.status import StatusTracker
from workers.tmux.panes import PaneSnapshot

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
    "claude_permission_prompt": ("claude", Sign.QUESTION,
                                 "Bash command: touch /tmp/cap/pwned — Do you want to proceed?"),
    # Claude Code 2.1.332: the same box, drawn on the alternate screen, auto mode's footer
    "claude_2_1_332_idle": ("claude", Sign.PROMPT_EMPTY, None),
    "claude_2_1_332_idle_after_esc_cleared": ("claude", Sign.PROMPT_EMPTY, None),
    "claude_2_1_332_half_typed": ("claude", Sign.PROMPT_TEXT, "half typed"),
    "claude_2_1_332_after_esc": ("claude", Sign.PROMPT_TEXT, "say hello"),
    "claude_2_1_332_busy": ("claude", Sign.BUSY, "Considering"),
    "claude_2_1_332_busy_later": ("claude", Sign.BUSY, "Considering"),
    "claude_2_1_332_trust_dialog": ("claude", Sign.QUESTION, "Is this a project you created"),
    "claude_2_1_332_bypass_dialog": ("claude", Sign.QUESTION, "Bypass Permissions mode"),
    "claude_2_1_332_permission_prompt": ("claude", Sign.QUESTION,
                                         "Bash command: touch /tmp/cc/flag — Do you want to"
                                         " proceed?"),
    "claude_2_1_332_auto_mode_approval": ("claude", Sign.QUESTION,
                                          "Bash command: touch /tmp/cc/flag — Do you want"
                                          " to proceed?"),
    "claude_2_1_332_auto_mode_notice": ("claude", Sign.QUESTION,
                                        "Auto mode can't check actions in this session"),
    # Claude Code 2.1.300: auto mode's notice is worded otherwise, and after Enter auto
    # mode runs the action itself, asking nothing
    "claude_2_1_300_auto_mode_notice": ("claude", Sign.QUESTION,
                                        "We're changing auto mode to no longer charge for"
                                        " classifier requests in Claude Code."),
    "claude_2_1_300_idle_after_auto_run": ("claude", Sign.PROMPT_EMPTY, None),
    "codex_idle": ("codex", Sign.PROMPT_EMPTY, None),
    "codex_idle_after_turn": ("codex", Sign.PROMPT_EMPTY, None),
    "codex_after_esc": ("codex", Sign.PROMPT_EMPTY, None),
    "codex_half_typed": ("codex", Sign.PROMPT_TEXT, "half typed"),
    "codex_busy": ("codex", Sign.BUSY, "esc to interrupt"),
    "codex_busy_typed": ("codex", Sign.BUSY, "esc to interrupt"),
    "codex_trust_dialog": ("codex", Sign.QUESTION, "Trust this folder?"),
    "codex_approval_prompt": ("codex", Sign.QUESTION,
                              "Would you like to run the following command?"),
    "hermes_idle": ("hermes", Sign.PROMPT_EMPTY, None),
    "hermes_idle_after_turn": ("hermes", Sign.PROMPT_EMPTY, None),
    "hermes_half_typed": ("hermes", Sign.PROMPT_TEXT, "half typed"),
    "hermes_busy": ("hermes", Sign.BUSY, None),
    "hermes_busy_queue_typed": ("hermes", Sign.BUSY, None),
    "hermes_busy_queued": ("hermes", Sign.BUSY, None),
    "hermes_approval_menu": ("hermes", Sign.QUESTION,
                             "Dangerous Command: rm -rf junk/sub (recursive delete): Allow"
                             " once / Allow for this session / Add to permanent allowlist"
                             " / Deny"),
    # Built from 0.19.0's cli.py panel code, not captured (see the README there): the
    # clarify tool's question, the sudo password and a skill's secret, each while the
    # turn's timer ticks. Enter there answers Hermes, so none of them is ever idle.
    "hermes_clarify_choices": ("hermes", Sign.QUESTION,
                               "Hermes needs your input: Which database should the project"
                               " use?: SQLite / PostgreSQL / Other (type your answer)"),
    "hermes_clarify_open": ("hermes", Sign.QUESTION,
                            "Hermes needs your input: What should the release be called?"),
    "hermes_sudo_password": ("hermes", Sign.QUESTION,
                             "Sudo Password Required: Enter password below (hidden), or"
                             " press Enter to skip"),
    "hermes_secret_prompt": ("hermes", Sign.QUESTION,
                             "Skill Setup Required: Enter value for TENOR_API_KEY (Get a key"
                             " at https://developers.google.com/tenor)"),
    "shell_bash_prompt": ("bash", Sign.PROMPT_EMPTY, None),
    "shell_bash_half_typed": ("bash", Sign.NOTHING, None),
    "shell_zsh_prompt": ("zsh -f", Sign.PROMPT_EMPTY, None),
    "shell_fish_prompt": ("fish", Sign.PROMPT_EMPTY, None),
    "shell_old_question_answered": ("bash", Sign.PROMPT_EMPTY, None),
    "shell_less": ("bash", Sign.NOTHING, None),
    "shell_man": ("bash", Sign.NOTHING, None),
    "shell_vim": ("bash", Sign.NOTHING, None),
    "shell_sudo_password": ("bash", Sign.QUESTION, "[sudo] password for bpdeliver:"),
    "shell_ssh_host_key": ("bash", Sign.QUESTION, "continue connecting (yes/no/[fingerprint])?"),
    "shell_question_yN": ("bash", Sign.QUESTION, "Overwrite existing file? [yN]"),
    "shell_question_y_n": ("bash", Sign.QUESTION, "Continue (y/n)?"),
}

# The same questions as a generic program (opted in to typing) would show them.
GENERIC_QUESTIONS = ("shell_sudo_password", "shell_ssh_host_key", "shell_question_yN",
                     "shell_question_y_n")
FULL_SCREEN = ("shell_less", "shell_man", "shell_vim")


def load(name: str) -> Screen:
    """A fixture: a JSON header line (cursor, alternate), then the captured text."""
    header, text = (FIXTURES / f"{name}.screen").read_text().split("\n", 1)
    meta = json.loads(header)
    return Screen.from_text(text, tuple(meta["cursor"]), meta["alternate"])


def snapshot(name: str) -> PaneSnapshot:
    """The fixture as one tick's snapshot of a pane (the pane's own process in front)."""
    screen = load(name)
    return PaneSnapshot(pane_id="%1", pid=1, dead=False, dead_status=None,
                        current_command="bash", title="", width=100, height=30,
                        content_hash=name, screen=screen.lines, cursor_x=screen.cursor_x,
                        cursor_y=screen.cursor_y, alternate=screen.alternate, in_front=True)


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


@pytest.mark.parametrize("name", GENERIC_QUESTIONS)
def test_a_generic_program_asking_is_a_question(name: str) -> None:
    assert adapter_for("python3 tool.py", deliver="type").read(load(name)).sign is Sign.QUESTION


@pytest.mark.parametrize("name", ["claude_idle", "claude_2_1_332_idle"])
def test_claude_at_its_empty_prompt_is_idle_on_either_screen(name: str) -> None:
    """2.1.197 draws on the normal screen, 2.1.332 on the alternate one: both are
    Claude's own, and its empty prompt held still is idle."""
    clock = [0.0]
    tracker = StatusTracker(idle_after=1.5, clock=lambda: clock[0], wall=lambda: clock[0])
    tracker.update({"%1": snapshot(name)}, {"%1": adapter_for("claude")})
    clock[0] += 5
    state = tracker.update({"%1": snapshot(name)}, {"%1": adapter_for("claude")})["%1"]
    assert state.status is AgentState.IDLE, state


@pytest.mark.parametrize("name", FULL_SCREEN)
def test_a_pager_or_editor_on_the_alternate_screen_is_never_idle(name: str) -> None:
    clock = [0.0]
    tracker = StatusTracker(idle_after=1.5, clock=lambda: clock[0], wall=lambda: clock[0])
    for adapter in (adapter_for("bash"), adapter_for("claude"), adapter_for("cat", "type")):
        tracker.forget("%1")
        tracker.update({"%1": snapshot(name)}, {"%1": adapter})
        clock[0] += 5
        state = tracker.update({"%1": snapshot(name)}, {"%1": adapter})["%1"]
        assert state.status is not AgentState.IDLE, (adapter.kind, state)


@pytest.mark.parametrize("name, kind", [
    ("claude_2_1_332_auto_mode_notice", "notice"), ("claude_2_1_300_auto_mode_notice", "notice"),
    ("claude_2_1_332_auto_mode_approval", "permission"),
    ("claude_2_1_332_permission_prompt", "permission"), ("claude_permission_prompt", "permission"),
    ("claude_2_1_332_idle", None), ("claude_2_1_300_idle_after_auto_run", None)])
def test_the_real_claude_tests_tell_each_releases_dialogs_by_kind(name: str,
                                                                   kind: str | None) -> None:
    """tests/agents/claude_dialogs.py, which the real-Claude tests follow, knows every
    release's notice and prompt; each known notice's words are one of its fixtures."""
    text = (FIXTURES / f"{name}.screen").read_text().split("\n", 1)[1]
    assert dialog_kind(text) == kind
    if kind == NOTICE:
        assert any(words in text for words in KNOWN_NOTICES.values())
