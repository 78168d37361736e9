"""One registry decides an agent's kind, for its screen and its launch alike, and a
kind's flags go after the program's own words, through any wrapper."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from board.models import Session
from workers.agents.adapter import Adapter, AgentKind
from workers.agents.command_line import split_command, with_flags
from workers.agents.kinds import KINDS, adapter_class, adapter_for, hook_adapter, hook_kinds
from workers.agents.launch import exec_form, launch_plan, pane_command

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("entry", KINDS, ids=lambda entry: entry.kind.value)
def test_each_registry_line_names_its_kinds_adapter(entry) -> None:
    adapter = adapter_class(entry.kind)
    assert issubclass(adapter, Adapter) and adapter.kind is entry.kind
    assert adapter_for(entry.programs[0]).kind is entry.kind
    assert adapter_for(f"npx {entry.packages[0]}").kind is entry.kind


def test_only_kinds_with_hooks_answer_bullpen_hook() -> None:
    assert hook_kinds() == ["hermes", "claude"]
    assert hook_adapter("claude").kind is AgentKind.CLAUDE
    assert hook_adapter("codex") is None and hook_adapter("sh") is None
    assert hook_adapter("nonsense") is None


def test_a_hook_call_loads_only_its_own_kind() -> None:
    code = ("import sys; from workers.surfaces.hooks import knows; knows('claude');"
            "print('\\n'.join(sys.modules))")
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                cwd=ROOT, check=True).stdout.split())
    assert "workers.agents.claude.adapter" in loaded
    assert not {name for name in loaded if name.startswith(
        ("workers.agents.hermes", "workers.agents.codex", "workers.agents.aider"))}
    assert not {name for name in loaded if name.split(".")[0] in ("yaml", "git", "libtmux")}


@pytest.mark.parametrize(("command", "wrappers", "program", "own"), [
    ("IS_SANDBOX=1 claude --dangerously-skip-permissions", ["IS_SANDBOX=1"], "claude",
     ["--dangerously-skip-permissions"]),
    ("env X=1 claude --model m", ["env", "X=1"], "claude", ["--model", "m"]),
    ("npx -y @anthropic-ai/claude-code", ["npx", "-y"], "@anthropic-ai/claude-code", []),
    ("uvx --from hermes-agent hermes", ["uvx", "--from", "hermes-agent"], "hermes", []),
    ("/opt/bin/hermes", [], "/opt/bin/hermes", []),
])
def test_a_command_splits_at_its_real_program(command: str, wrappers: list[str], program: str,
                                               own: list[str]) -> None:
    line = split_command(command)
    assert line is not None
    assert (list(line.wrappers), line.program, list(line.own)) == (wrappers, program, own)


def test_flags_follow_the_programs_own_words_and_keep_what_the_user_wrote() -> None:
    assert with_flags("IS_SANDBOX=1 claude --dangerously-skip-permissions", ["--settings", "F"]) \
        == "IS_SANDBOX=1 claude --dangerously-skip-permissions --settings F"
    assert with_flags("npx @anthropic-ai/claude-code", ["--settings", "F"]) == \
        "npx @anthropic-ai/claude-code --settings F"
    assert with_flags('claude -- "fix it -- now"', ["--settings", "a b"]) == \
        "claude --settings 'a b' -- \"fix it -- now\""
    assert with_flags("$HOME/bin/claude", ["--x"]) == "$HOME/bin/claude --x"


def test_a_command_after_assignments_is_execd_through_env() -> None:
    """The program, not the shell, is the pane's foreground process (which the screen
    reader checks), also after a set-up step."""
    assert pane_command("IS_SANDBOX=1 claude --x", "/p") == \
        "export PATH=/p; exec env IS_SANDBOX=1 claude --x"
    assert exec_form("X=1 claude | tee log") == "X=1 claude | tee log"
    assert pane_command("claude | tee log", "/p") == "export PATH=/p; claude | tee log"


def _session(agent: str) -> Session:
    return Session(name="coder", agent=agent, profile=None, branch=None, worktree=None,
                   pane=None, desired="running", status="starting", exit_code=None,
                   task=None, base=None, hook_status=None, hook_status_at=None,
                   last_activity=None, created_at=0.0)


@pytest.mark.parametrize("agent", ["env X=1 codex", "npx @openai/codex", "/usr/local/bin/codex"])
def test_wrapped_codex_is_launched_as_codex(agent: str) -> None:
    plan = launch_plan(_session(agent), "t", Path("/r"))
    assert plan.kind is AgentKind.CODEX
    words = shlex.split(plan.command.split("exec ", 1)[1])
    assert words[:len(shlex.split(agent))] == shlex.split(agent)
    assert words[-1] == "--no-daemon" and "-c" in words
