"""The choices of a question, read from menus real agents drew (tests/fixtures/screens),
and the fingerprint that names the question: the same words and choices give the same id
whichever choice is selected and whatever ticks outside the dialog; other words another."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workers.agents.adapter import Screen
from workers.agents.readers.menus import arrow_keys, pick, read_menu

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "screens"


def screen(name: str) -> Screen:
    head, _, text = (FIXTURES / f"{name}.screen").read_text().partition("\n")
    meta = json.loads(head)
    return Screen.from_text(text, tuple(meta["cursor"]), meta.get("alternate", False))


# fixture -> (the choices in order, the selected one, a line of the context)
MENUS = {
    "claude_permission_prompt": (["Yes", "Yes, and always allow access to cap/ from this"
                                  " project", "No"], "Yes", "touch /tmp/cap/pwned"),
    "claude_2_1_332_permission_prompt": (
        ["Yes", "Yes, and always allow access to /tmp/cc from this project",
         "Yes, and switch to auto mode · auto mode handles these prompts for you", "No"],
        "Yes", "touch /tmp/cc/flag"),
    "claude_2_1_332_auto_mode_approval": (["No", "Yes"], "No", "touch /tmp/cc/flag"),
    "claude_2_1_332_trust_dialog": (["No, exit", "Yes, I trust this folder"], "No, exit",
                                    "/tmp/cc/untrusted"),
    "codex_approval_prompt": (
        ["Yes, proceed (y)", "Yes, and don't ask again for commands that start with"
         " `touch build.flag` (p)", "No, and tell Codex what to do differently (esc)"],
        "Yes, proceed (y)", "$ touch build.flag"),
    "hermes_approval_menu": (["Allow once", "Allow for this session",
                              "Add to permanent allowlist", "Deny"], "Allow once",
                             "rm -rf junk/sub"),
}


@pytest.mark.parametrize("name", sorted(MENUS))
def test_a_menu_is_read_with_its_choices_in_order_and_its_context(name: str) -> None:
    labels, selected, context = MENUS[name]
    asked = read_menu(screen(name))
    assert asked is not None
    assert [choice.label for choice in asked.choices] == labels
    assert [choice.number for choice in asked.choices] == list(range(1, len(labels) + 1))
    assert asked.choices[asked.selected].label == selected
    assert context in asked.context


@pytest.mark.parametrize("name", ["claude_idle", "claude_2_1_332_idle", "claude_busy",
                                  "codex_idle", "codex_idle_after_turn", "hermes_idle",
                                  "hermes_idle_after_turn", "shell_bash_prompt",
                                  "claude_2_1_332_after_esc", "codex_half_typed"])
def test_an_input_box_or_a_prompt_in_the_history_is_no_menu(name: str) -> None:
    assert read_menu(screen(name)) is None


def _moved(name: str, *changes: tuple[str, str]) -> Screen:
    """The fixture's screen with each (old, new) text replaced."""
    before = screen(name)
    lines = before.lines
    for old, new in changes:
        lines = tuple(line.replace(old, new) for line in lines)
    return Screen(lines, before.cursor_x, before.cursor_y, before.alternate)


def test_the_fingerprint_ignores_which_choice_is_selected() -> None:
    before = read_menu(screen("claude_2_1_332_permission_prompt"))
    after = read_menu(_moved("claude_2_1_332_permission_prompt",
                             (" ❯ 1. Yes", "   1. Yes"), ("   4. No", " ❯ 4. No")))
    assert before is not None and after is not None
    assert after.choices[after.selected].label == "No"
    assert before.fingerprint == after.fingerprint


def test_the_fingerprint_ignores_hermes_countdown_and_timer() -> None:
    before = read_menu(screen("hermes_approval_menu"))
    after = read_menu(_moved("hermes_approval_menu", ("(57s)", "(41s)")))
    later = read_menu(_moved("hermes_approval_menu", ("⏱ 10s", "⏱ 26s")))
    assert before is not None and after is not None and later is not None
    assert before.fingerprint == after.fingerprint == later.fingerprint


@pytest.mark.parametrize("old,new", [("touch /tmp/cc/flag", "rm -rf /tmp/cc"),
                                     ("4. No", "4. Never")])
def test_another_command_or_other_choices_are_another_question(old: str, new: str) -> None:
    before = read_menu(screen("claude_2_1_332_permission_prompt"))
    after = read_menu(_moved("claude_2_1_332_permission_prompt", (old, new)))
    assert before is not None and after is not None
    assert before.fingerprint != after.fingerprint


def test_a_choice_is_named_by_its_number_or_its_whole_label() -> None:
    asked = read_menu(screen("claude_2_1_332_permission_prompt"))
    assert asked is not None
    assert pick(asked.choices, "4") == asked.choices[3]
    assert pick(asked.choices, " no ") == asked.choices[3]
    assert pick(asked.choices, "yes") == asked.choices[0]
    assert pick(asked.choices, "5") is None and pick(asked.choices, "Ye") is None
    assert pick(asked.choices, "0") is None


def test_the_selector_moves_by_arrows_from_where_it_is() -> None:
    asked = read_menu(screen("claude_2_1_332_permission_prompt"))
    assert asked is not None
    assert arrow_keys(asked.choices, 0, asked.choices[3]) == ("Down",) * 3
    assert arrow_keys(asked.choices, 3, asked.choices[1]) == ("Up",) * 2
    assert arrow_keys(asked.choices, 2, asked.choices[2]) == ()
