"""Agent hooks fed recorded Hermes and Claude Code payloads, on a real SQLite room."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from board import notes, reads, sessions
from board.identity import Caller
from board.room import Room
from tests.cli_runner import identity, run_cli
from workers.surfaces.hooks import handle_claude, handle_hermes, run_hook


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
    assert output == {"context": f"[bullpen note {note.id} from alice] the API moved to v2"
                                 f" (answer with send_note to=alice reply_to={note.id})"}
    assert notes.delivery_state(bob.conn, note.id, "bob") == "delivered"
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
                   "tool_input": {"command": "cat src/other.py"}}, bob)
    assert read_paths(bob, "bob") == ["README.md", "src/app.py"]

    note = notes.send(bob.conn, "alice", "bob", "please review #4")
    prompt = {**base, "hook_event_name": "UserPromptSubmit", "prompt": "go on"}
    assert handle_claude(prompt, bob) == {"hookSpecificOutput": {
        "hookEventName": "UserPromptSubmit",
        "additionalContext": f"[bullpen note {note.id} from alice] please review #4"
                             f" (answer with send_note to=alice reply_to={note.id})"}}
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
