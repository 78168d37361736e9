"""workers.agents.pre_tool: the decision before a command runs never raises and never
lets a command it could not check through."""

from __future__ import annotations

from pathlib import Path

import pytest

from workers.agents import command_policy, pre_tool
from workers.agents.claude import hooks as claude_hooks
from workers.agents.claude import settings as claude_settings
from workers.agents.hermes import config as hermes_config
from workers.agents.hermes import deny as hermes_deny
from workers.agents.hermes import hooks as hermes_hooks


def floor() -> tuple[str, ...]:
    return command_policy.FLOOR


def test_a_denied_command_is_the_policys_denial() -> None:
    refusal = pre_tool.guarded("git push --force origin main", floor)
    assert refusal is not None and refusal.pattern == "floor: a forced push"
    assert pre_tool.guarded("git status", floor) is None


@pytest.mark.parametrize(("command", "why"), [
    ("echo " + "x" * pre_tool.MAX_COMMAND_CHARS, "characters, over the"),
    ("echo \ud800", "not valid text"),
    ("echo \udcff", "not valid text"),  # a byte not UTF-8, read with surrogateescape
])
def test_what_cannot_be_checked_is_refused(command: str, why: str) -> None:
    refusal = pre_tool.guarded(command, floor)
    assert isinstance(refusal, pre_tool.Unchecked) and why in refusal.why
    assert refusal.reason().startswith("bullpen could not check this command (")
    assert refusal.shown.encode("utf-8")  # text the store and the log can take


def test_an_exception_in_the_policy_or_its_patterns_is_a_refusal(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> tuple[str, ...]:
        raise PermissionError("patterns unreadable")

    refusal = pre_tool.guarded("ls", broken)
    assert isinstance(refusal, pre_tool.Unchecked)
    assert refusal.why == "PermissionError: patterns unreadable"

    def check(command: str, deny: object) -> None:
        raise RecursionError("deep")

    monkeypatch.setattr(command_policy, "check", check)
    assert pre_tool.guarded("ls", floor).why == "RecursionError: deep"  # type: ignore[union-attr]


def test_a_decision_slower_than_its_bound_is_a_refusal(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    import threading

    never = threading.Event()
    monkeypatch.setattr(pre_tool, "session_patterns",
                        lambda home, session: lambda: never.wait(30) or ())
    refusal = pre_tool.decide("ls", tmp_path, "bob", seconds=0.2)
    never.set()
    assert isinstance(refusal, pre_tool.Unchecked) and refusal.why == "the check took over 0.2 s"


def test_a_call_no_session_made_is_refused(tmp_path: Path) -> None:
    for home, session in ((None, "bob"), (tmp_path, "")):
        refusal = pre_tool.decide("ls", home, session)
        assert isinstance(refusal, pre_tool.Unchecked)
        assert "not started by a bullpen session" in refusal.why


def test_the_kinds_pre_tool_events_are_the_ones_the_hook_process_looks_for() -> None:
    assert pre_tool.SHELL_TOOL_OF == {claude_hooks.BEFORE_TOOL: claude_hooks.SHELL_TOOL,
                                      hermes_hooks.BEFORE_TOOL: hermes_deny.TERMINAL}
    assert hermes_config.BEFORE_TOOL == hermes_hooks.BEFORE_TOOL
    assert hermes_config.HOOK_MATCHERS == {hermes_hooks.BEFORE_TOOL: hermes_deny.TERMINAL}


def test_each_agents_hook_timeout_is_far_above_the_decisions_bound() -> None:
    """A hook the agent gave up on counts as allowed: the bound must come first."""
    [entry] = claude_settings.launch_settings("bullpen")["hooks"]["PreToolUse"]
    [hook] = entry["hooks"]
    assert hook["timeout"] == claude_settings.PRE_TOOL_TIMEOUT
    assert hook["timeout"] >= 10 * pre_tool.DECIDE_SECONDS
    assert hermes_config.HOOK_TIMEOUT_SECONDS >= 2 * pre_tool.DECIDE_SECONDS
