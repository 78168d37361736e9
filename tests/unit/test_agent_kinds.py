"""Which adapter a session gets, from its agent command (wrappers looked through)."""

from __future__ import annotations

import pytest

from workers.agents.adapter import AgentKind, Route
from workers.agents.kinds import adapter_for, kind_of, program_of


@pytest.mark.parametrize(("command", "kind"), [
    ("claude", AgentKind.CLAUDE),
    ("env X=1 claude --verbose", AgentKind.CLAUDE),
    ("IS_SANDBOX=1 claude --dangerously-skip-permissions", AgentKind.CLAUDE),
    ("/usr/local/bin/claude -p 'hi'", AgentKind.CLAUDE),
    ("npx @anthropic-ai/claude-code", AgentKind.CLAUDE),
    ("npx -y @anthropic-ai/claude-code@2.1.197", AgentKind.CLAUDE),
    ("hermes", AgentKind.HERMES),
    ("exec hermes -p coder --cli", AgentKind.HERMES),
    ("env -u FOO HERMES_HOME=/tmp/h hermes", AgentKind.HERMES),
    ("codex", AgentKind.CODEX),
    ("npx @openai/codex", AgentKind.CODEX),
    ("aider --model x", AgentKind.AIDER),
    ("nice -n 5 aider", AgentKind.AIDER),
    ("uvx aider-chat", AgentKind.AIDER),
    ("bash", AgentKind.SHELL),
    ("/bin/zsh -l", AgentKind.SHELL),
    ("-bash", AgentKind.SHELL),
    ("fish", AgentKind.SHELL),
    ("rbash", AgentKind.SHELL),
    ("sh -c 'read x; exit 3'", AgentKind.SHELL),
    ("", AgentKind.SHELL),
    ("python3 tests/agents/scripted_agent.py --log x", AgentKind.GENERIC),
    ("cat", AgentKind.GENERIC),
    ("claude-wrapper.sh", AgentKind.GENERIC),
])
def test_kind_of_the_agent_command(command: str, kind: AgentKind) -> None:
    assert kind_of(command) is kind


def test_unparsable_command_runs_nothing_known() -> None:
    assert program_of("claude 'unclosed") == ""


def test_shells_are_never_typed_into_and_generic_only_when_opted_in() -> None:
    assert adapter_for("zsh").route is Route.ANNOUNCE
    assert adapter_for("cat").opted_in is False
    assert adapter_for("cat", deliver="type").opted_in is True
    assert adapter_for("claude").has_hooks and adapter_for("hermes").has_hooks
