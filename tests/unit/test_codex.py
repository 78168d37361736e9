"""Codex: the command a pane runs (bullpen's MCP server as a `-c` override, parsed by a
real TOML parser as Codex will; the conversation it resumes), and the composer rules the
fixtures alone don't pin."""

from __future__ import annotations

import json
import os
import shlex
import tomllib
from pathlib import Path

from board.models import Session
from board.vocabulary import IDENTITY_VARIABLES
from tests.unit.test_screens import load
from workers.agents.adapter import Screen, Sign
from workers.agents.codex.adapter import CodexAdapter
from workers.agents.codex.launch import codex_command, last_conversation, mcp_override
from workers.agents.launch import launch_plan


def _session(agent: str) -> Session:
    return Session(name="coder", agent=agent, profile=None, branch=None, worktree=None,
                   pane=None, desired="running", status="starting", exit_code=None,
                   task=None, base=None, hook_status=None, hook_status_at=None,
                   last_activity=None, created_at=0.0)


EXECUTABLE = '/opt/my "tools"/bin/bullpen'


def _override_table(command: str) -> dict:
    words = shlex.split(command)
    key, value = words[words.index("-c") + 1].split("=", 1)
    return tomllib.loads(f"value = {value}")["value"] | {"key": key}


def test_the_override_is_toml_codex_reads_as_bullpens_mcp_server() -> None:
    table = _override_table(codex_command("codex", EXECUTABLE))
    assert table == {"key": "mcp_servers.bullpen", "command": EXECUTABLE, "args": ["mcp"],
                     "env_vars": [str(name) for name in IDENTITY_VARIABLES],
                     "default_tools_approval_mode": "approve"}


def test_the_token_is_passed_by_name_never_on_the_command_line() -> None:
    assert "BULLPEN_TOKEN" in mcp_override(EXECUTABLE)
    plan = launch_plan(_session("codex"), "secret-token-123", Path("/r"))
    assert "secret-token-123" not in plan.command
    assert plan.env["BULLPEN_TOKEN"] == "secret-token-123"


def test_a_codex_session_is_launched_with_the_server_and_no_daemon() -> None:
    plan = launch_plan(_session("codex -m o3"), "t", Path("/r"))
    assert plan.kind == "codex"
    words = shlex.split(plan.command.split("exec ", 1)[1])
    assert words[:3] == ["codex", "-m", "o3"] and "--no-daemon" in words
    assert any(word.startswith("mcp_servers.bullpen=") for word in words)


def test_no_daemon_is_not_given_twice() -> None:
    assert shlex.split(codex_command("codex --no-daemon", EXECUTABLE)).count("--no-daemon") == 1


def test_a_placeholder_counts_as_empty_only_with_the_cursor_after_the_mark() -> None:
    idle = load("codex_idle")
    assert CodexAdapter().read(idle).sign is Sign.PROMPT_EMPTY
    # The same text with the cursor at its end: the human typed it.
    row = idle.cursor_y
    typed = Screen(idle.lines, len(idle.lines[row]), row, idle.alternate)
    reading = CodexAdapter().read(typed)
    assert reading.sign is Sign.PROMPT_TEXT and reading.detail == "Ask Codex to do anything"


def test_earlier_prompts_in_the_history_are_not_the_composer() -> None:
    # codex_idle_after_turn shows "› busy please" above: only the last `› ` line counts.
    screen = load("codex_idle_after_turn")
    assert any(line.startswith("› busy please") for line in screen.lines)
    assert CodexAdapter().input_text(screen) == ""


def test_a_menu_is_a_question_even_with_a_composer_in_the_history() -> None:
    reading = CodexAdapter().read(load("codex_approval_prompt"))
    assert reading.sign is Sign.QUESTION
    assert reading.detail == "Would you like to run the following command?"


def _rollout(home: Path, name: str, cwd: Path, conversation: str, touched: float) -> None:
    day = home / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True, exist_ok=True)
    path = day / f"rollout-{name}.jsonl"
    meta = {"type": "session_meta", "payload": {"id": conversation, "cwd": str(cwd)}}
    path.write_text(json.dumps(meta) + "\n" + json.dumps({"type": "event"}) + "\n")
    os.utime(path, (touched, touched))


def test_the_conversation_resumed_is_the_newest_one_of_this_worktree_since_creation(
        tmp_path: Path) -> None:
    worktree, other = tmp_path / "wt" / "coder", tmp_path / "wt" / "other"
    worktree.mkdir(parents=True)
    home = tmp_path / "codex"
    env = {"CODEX_HOME": str(home)}
    _rollout(home, "a", worktree, "predecessor", touched=100.0)  # before the session
    _rollout(home, "b", worktree, "first", touched=300.0)
    _rollout(home, "c", worktree, "latest", touched=400.0)
    _rollout(home, "d", other, "elsewhere", touched=500.0)
    (home / "sessions" / "2026" / "12" / "01" / "rollout-e.jsonl").write_text("not json\n")
    assert last_conversation(worktree, since=200.0, env=env) == "latest"
    assert last_conversation(worktree, since=450.0, env=env) is None
    assert last_conversation(tmp_path / "nowhere", since=0.0, env=env) is None


def test_resume_is_given_only_to_a_plain_codex() -> None:
    assert shlex.split(codex_command("codex", EXECUTABLE, resume="abc"))[:3] == [
        "codex", "resume", "abc"]
    assert "resume" not in shlex.split(codex_command("codex -m o3", EXECUTABLE, resume="abc"))
