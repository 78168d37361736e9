"""Reads Claude made while no coordinator ran are read back from its transcript.

The transcript lines here have the shape Claude Code 2.1.197 writes
(`~/.claude/projects/<cwd>/<conversation>.jsonl`: an assistant line per tool call with
its `timestamp`, `cwd` and `tool_use` part); the real-Claude test proves the whole path.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from board import reads, sessions
from board.room import Room
from workers.agents import agent_files
from workers.coordinator.missed_reads import catch_up_reads

pytestmark = pytest.mark.both_stores

CONVERSATION = "076220c6-27ae-4ac2-b7b3-b79bd93d0b99"


def stamp(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z")


def tool_line(epoch: float, cwd: Path, name: str, tool_input: dict) -> dict:
    return {"type": "assistant", "timestamp": stamp(epoch), "cwd": str(cwd),
            "sessionId": CONVERSATION,
            "message": {"role": "assistant", "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "toolu_01", "name": name, "input": tool_input}]}}


def write_transcript(config: Path, cwd: Path, lines: list[dict | str]) -> Path:
    project = config / "projects" / str(cwd).replace("/", "-")
    project.mkdir(parents=True)
    path = project / f"{CONVERSATION}.jsonl"
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n"
                            for line in lines))
    return path


@pytest.fixture
def claude_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    return config


def test_reads_after_the_newest_recorded_one_are_recorded_at_claudes_time(
        room: Room, git_repo: Path, claude_config: Path) -> None:
    sessions.register(room.conn, "coder", agent="claude", worktree=str(git_repo))
    sessions.register(room.conn, "shell", agent="bash", worktree=str(git_repo))
    agent_files.write_value(room.home, "coder", agent_files.CONVERSATION, CONVERSATION)
    (git_repo / "docs").mkdir()
    (git_repo / "docs" / "notes.md").write_text("notes\n")
    reads.record(room.conn, "coder", ["README.md"])  # the hook's last read before the gap
    recorded = reads.latest(room.conn, "coder")
    write_transcript(claude_config, git_repo, [
        tool_line(recorded - 5, git_repo, "Read", {"file_path": str(git_repo / "old.py")}),
        tool_line(recorded + 1, git_repo, "Read", {"file_path": str(git_repo / "src/app.py")}),
        '{"type": "assistant", "timestamp": "2026-12-01T11:',  # still being written
        tool_line(recorded + 2, git_repo, "Bash", {"command": "sed -n 1,5p docs/notes.md"}),
        tool_line(recorded + 3, git_repo, "Read", {"file_path": "/etc/hostname"}),
        tool_line(recorded + 4, git_repo, "mcp__bullpen__send_note", {"to": "x"}),
    ])
    (git_repo / "old.py").write_text("old\n")  # read before the gap: the hook had it

    assert catch_up_reads(room.conn, room.home, sessions.all_sessions(room.conn)) == 2
    found = {path: (at, source) for path, at, source in room.conn.execute(
        "SELECT path, read_at, source FROM reads WHERE session = 'coder'")}
    assert set(found) == {"README.md", "src/app.py", "docs/notes.md"}
    assert found["src/app.py"] == pytest.approx((recorded + 1, "transcript"), abs=0.01)
    assert found["docs/notes.md"] == pytest.approx((recorded + 2, "transcript"), abs=0.01)
    # A second start-up finds nothing new: each read is recorded once.
    assert catch_up_reads(room.conn, room.home, sessions.all_sessions(room.conn)) == 0


def test_sessions_without_a_transcript_are_passed_over(
        room: Room, git_repo: Path, claude_config: Path) -> None:
    sessions.register(room.conn, "fresh", agent="claude", worktree=str(git_repo))
    sessions.register(room.conn, "lost", agent="claude", worktree=str(git_repo))
    agent_files.write_value(room.home, "lost", agent_files.CONVERSATION, "../../etc/passwd")
    write_transcript(claude_config, git_repo, [  # another conversation's, not "*"'s
        tool_line(4e9, git_repo, "Read", {"file_path": str(git_repo / "README.md")})])
    agent_files.write_value(room.home, "fresh", agent_files.CONVERSATION, "*")
    assert catch_up_reads(room.conn, room.home, sessions.all_sessions(room.conn)) == 0
    assert reads.latest(room.conn, "fresh") is None
