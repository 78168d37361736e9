"""Agent hooks fed recorded Hermes and Claude Code payloads, on a real SQLite room."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from board import chains, notes, reads, sessions
from board.identity import Caller
from board.room import Room
from tests.cli_runner import identity, run_cli
from workers.agents import agent_files
from workers.agents.adapter import AgentState
from workers.agents.kinds import adapter_for
from workers.coordinator.delivery import QUEUE_CAP, Deliverer
from workers.coordinator.status import PaneStatus
from workers.surfaces.hooks import handler, run_hook
from workers.tmux.server import RoomServer

handle_claude, handle_hermes = handler("claude"), handler("hermes")

REVIEW = ("Review the conversation above and consider saving to memory if appropriate.\n\n"
          "Focus on: ...")


def reply_hint(sender: str, note_id: int) -> str:
    """How a note says to answer it: the MCP tool, or bullpen by name (on the PATH)."""
    return (f" (reply with the tool mcp__bullpen__send_note to={sender!r} reply_to={note_id},"
            f" or run: bullpen note send {sender} 'TEXT' --reply-to {note_id})")

pytestmark = pytest.mark.both_stores


@pytest.fixture
def bob(room: Room) -> Room:
    """The room as seen by session bob (alice exists too)."""
    sessions.register(room.conn, "alice")
    sessions.register(room.conn, "bob")
    return Room(room.home, room.conn, Caller("bob"))


def hermes_payload(event: str, cwd: Path, tool: str | None = None,
                   tool_input: dict | None = None, **extra: object) -> dict:
    """The JSON Hermes 0.19 pipes to a shell hook (agent/shell_hooks.py)."""
    return {"hook_event_name": event, "tool_name": tool, "tool_input": tool_input,
            "session_id": "20260101_120000_abcd", "cwd": str(cwd), "extra": extra}


def read_paths(room: Room, session: str) -> list[str]:
    return sorted(path for path, _ in reads.of_session(room.conn, session))


def test_hermes_file_tools_record_reads_relative_to_the_checkout(bob: Room,
                                                                git_repo: Path) -> None:
    for tool, path in [("read_file", "src/app.py"), ("patch", str(git_repo / "README.md")),
                       ("write_file", "src/new.py"), ("search_files", "."),
                       ("read_file", "/etc/hostname"), ("terminal", "src/other.py")]:
        payload = hermes_payload("post_tool_call", git_repo, tool, {"path": path},
                                 status="ok", result="...")
        assert handle_hermes(payload, bob) is None
    failed = hermes_payload("post_tool_call", git_repo, "read_file", {"path": "gone.py"},
                            status="error")
    handle_hermes(failed, bob)
    assert read_paths(bob, "bob") == ["README.md", "src/app.py", "src/new.py"]
    sources = {row[0] for row in bob.conn.execute("SELECT source FROM reads")}
    assert sources == {"hook"}


def test_hermes_pre_llm_call_takes_pending_notes_once(bob: Room, git_repo: Path) -> None:
    note = notes.send(bob.conn, "alice", "bob", "the API moved to v2")
    output = handle_hermes(hermes_payload("pre_llm_call", git_repo,
                                          user_message="continue"), bob)
    assert output == {"context": f"[bullpen note {note.id} from alice]\n"
                                 "    the API moved to v2\n    "
                                 + reply_hint("alice", note.id).strip()}
    assert "to=bullpen" not in output["context"]
    assert notes.delivery_state(bob.conn, note.id, "bob") == "handed"
    assert sessions.get(bob.conn, "bob").hook_status == "working"
    assert handle_hermes(hermes_payload("pre_llm_call", git_repo), bob) is None
    handle_hermes(hermes_payload("on_session_end", git_repo, completed=True), bob)
    assert sessions.get(bob.conn, "bob").hook_status == "idle"


def test_claude_payloads(bob: Room, git_repo: Path) -> None:
    base = {"session_id": "abc123", "transcript_path": "/tmp/t.jsonl", "cwd": str(git_repo)}
    handle_claude({**base, "hook_event_name": "PostToolUse", "tool_name": "Read",
                   "tool_input": {"file_path": str(git_repo / "src/app.py")},
                   "tool_response": {"type": "text"}}, bob)
    handle_claude({**base, "hook_event_name": "PostToolUse", "tool_name": "Grep",
                   "tool_input": {"pattern": "def", "path": "README.md"}}, bob)
    handle_claude({**base, "hook_event_name": "PostToolUse", "tool_name": "Bash",
                   "tool_input": {"command": "cat src/other.py"}}, bob)  # no such file
    assert read_paths(bob, "bob") == ["README.md", "src/app.py"]

    note = notes.send(bob.conn, "alice", "bob", "please review #4")
    prompt = {**base, "hook_event_name": "UserPromptSubmit", "prompt": "go on"}
    assert handle_claude(prompt, bob) == {"hookSpecificOutput": {
        "hookEventName": "UserPromptSubmit",
        "additionalContext": f"[bullpen note {note.id} from alice]\n    please review #4\n    "
                             + reply_hint("alice", note.id).strip()}}
    assert handle_claude(prompt, bob) is None
    handle_claude({**base, "hook_event_name": "Stop", "stop_hook_active": False}, bob)
    assert sessions.get(bob.conn, "bob").hook_status == "idle"


@pytest.mark.parametrize(("stdin", "env_name", "logged"), [
    ("not json", "bob", "payload is not JSON"),
    ('{"hook_event_name": "on_moon_rise"}', "bob", "unknown hermes hook event"),
    ('["a list"]', "bob", "payload is not a JSON object"),
    ('{"hook_event_name": "pre_llm_call"}', None, "no BULLPEN_SESSION"),
    ('{"hook_event_name": "pre_llm_call"}', "forged", "does not match session 'bob'"),
])
def test_bad_input_is_logged_and_quiet(room: Room, stdin: str, env_name: str | None,
                                       logged: str) -> None:
    token = sessions.register(room.conn, "bob")
    env = {"BULLPEN_HOME": str(room.home)}
    if env_name == "bob":
        env.update(identity(room.home, "bob", token))
    elif env_name == "forged":
        env.update(identity(room.home, "bob", "forged"))
    assert run_hook("hermes", stdin, env) == ""
    log = (room.home / "logs" / "hooks.log").read_text().splitlines()
    assert len(log) == 1 and logged in log[0]


def test_bullpen_hook_command_prints_context(room: Room, git_repo: Path) -> None:
    env = identity(room.home, "bob", sessions.register(room.conn, "bob"))
    sessions.register(room.conn, "alice")
    note = notes.send(room.conn, "alice", "bob", "ping")
    payload = json.dumps(hermes_payload("pre_llm_call", git_repo))
    result = run_cli("hook", "hermes", cwd=git_repo, env=env, input=payload)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["context"].startswith(f"[bullpen note {note.id} from alice]")
    quiet = run_cli("hook", "hermes", cwd=git_repo, env=env, input="garbage")
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")


def test_claude_bash_reads_come_from_the_command_text(bob: Room, git_repo: Path) -> None:
    (git_repo / "docs").mkdir()
    (git_repo / "docs" / "notes.md").write_text("notes\n")
    base = {"session_id": "abc123", "cwd": str(git_repo), "hook_event_name": "PostToolUse",
            "tool_name": "Bash"}
    for command in ["sed -n 1,20p src/app.py", "rg -n TODO docs/notes.md | head -n 3",
                    "grep handler README.md > /tmp/out.txt", "cat /etc/hostname",
                    "ls -la src", "echo README.md"]:
        handle_claude({**base, "tool_input": {"command": command}}, bob)
    assert read_paths(bob, "bob") == ["README.md", "docs/notes.md", "src/app.py"]


def test_claude_permission_request_is_needs_input_until_the_tool_runs(
        bob: Room, git_repo: Path) -> None:
    base = {"session_id": "abc123", "cwd": str(git_repo)}
    handle_claude({**base, "hook_event_name": "PermissionRequest", "tool_name": "Write",
                   "tool_input": {"file_path": str(git_repo / "b.txt"), "content": "x"}}, bob)
    assert sessions.get(bob.conn, "bob").hook_status == "needs_input"
    log = (bob.home / "logs" / "hooks.log").read_text()
    assert f"needs input: Claude asks to use Write ({git_repo / 'b.txt'})" in log
    handle_claude({**base, "hook_event_name": "PostToolUse", "tool_name": "Write",
                   "tool_input": {"file_path": str(git_repo / "b.txt")}}, bob)
    assert sessions.get(bob.conn, "bob").hook_status == "working"


def test_claude_session_start_keeps_the_conversation_to_resume(bob: Room,
                                                               git_repo: Path) -> None:
    handle_claude({"session_id": "674842eb-1a4c", "cwd": str(git_repo),
                   "hook_event_name": "SessionStart", "source": "startup"}, bob)
    assert agent_files.read_value(bob.home, "bob", agent_files.CONVERSATION) == "674842eb-1a4c"
    handle_claude({"session_id": "99-after-clear", "cwd": str(git_repo),
                   "hook_event_name": "SessionStart", "source": "clear"}, bob)
    assert agent_files.read_value(bob.home, "bob", agent_files.CONVERSATION) == "99-after-clear"


def test_hermes_review_agent_takes_no_notes_and_reports_nothing(bob: Room,
                                                                git_repo: Path) -> None:
    first = notes.send(bob.conn, "alice", "bob", "first")
    turn = hermes_payload("pre_llm_call", git_repo, user_message="do the work", task_id="t1")
    assert str(first.id) in handle_hermes(turn, bob)["context"]
    second = notes.send(bob.conn, "alice", "bob", "second")
    # The review starts while the turn is open, and again after it ended: neither counts.
    review = hermes_payload("pre_llm_call", git_repo, user_message=REVIEW, task_id="r1")
    assert handle_hermes(review, bob) is None
    nested = hermes_payload("pre_llm_call", git_repo, user_message="subagent goal",
                            task_id="s1")
    assert handle_hermes(nested, bob) is None
    handle_hermes(hermes_payload("on_session_end", git_repo, task_id="r1"), bob)
    assert sessions.get(bob.conn, "bob").hook_status == "working"
    handle_hermes(hermes_payload("on_session_end", git_repo, task_id="t1"), bob)
    assert sessions.get(bob.conn, "bob").hook_status == "idle"
    assert handle_hermes(review, bob) is None
    handle_hermes(hermes_payload("on_session_end", git_repo, task_id="r1"), bob)
    assert notes.delivery_state(bob.conn, second.id, "bob") != "delivered"
    later = hermes_payload("pre_llm_call", git_repo, user_message="next", task_id="t2")
    assert str(second.id) in handle_hermes(later, bob)["context"]
    assert agent_files.read_value(bob.home, "bob", agent_files.CONVERSATION) == (
        "20260101_120000_abcd")


def test_notes_over_the_cap_are_announced_in_the_hook_context_once(
        bob: Room, git_repo: Path) -> None:
    """60 notes to a busy Claude: the coordinator caps the 10 oldest; its next turn's
    context holds the 50 others and says that 10 older ones wait in the inbox, once."""
    chains.set_limits(bob.conn, chains.Limits(rate=None))  # 60 at once: past alice's rate
    sent = [notes.send(bob.conn, "alice", "bob", f"note number {i}") for i in range(60)]
    busy = PaneStatus(AgentState.WORKING, since=0.0, input_text="")
    Deliverer(bob.conn, RoomServer("unused")).deliver(
        sessions.get(bob.conn, "bob"), adapter_for("claude", None), busy, None)
    prompt = {"session_id": "abc", "cwd": str(git_repo), "hook_event_name": "UserPromptSubmit",
              "prompt": "go on"}
    context = handle_claude(prompt, bob)["hookSpecificOutput"]["additionalContext"]
    assert context.count("[bullpen note ") == QUEUE_CAP
    assert context.endswith("\n[bullpen] 10 older notes were not handed to you (queue over"
                            " 50); read them with the tool mcp__bullpen__inbox or:"
                            " bullpen note inbox")
    assert f"[bullpen note {sent[10].id} from alice]" in context
    assert f"[bullpen note {sent[9].id} from alice]" not in context
    assert handle_claude(prompt, bob) is None  # told once
    assert [n.id for n in notes.inbox(bob.conn, bob.caller)] == [n.id for n in sent[:10]]
