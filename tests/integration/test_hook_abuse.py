"""The hook port under abuse: anyone on the machine can connect to it, so neither a flood
of refused requests nor a crowd of connections that never finish may fill the disk,
starve the coordinator of descriptors or threads, or stop honest hooks being answered."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest

from board import reads, sessions
from board.room import Room
from tests.waiting import wait_until
from workers import logs
from workers.surfaces import hook_server
from workers.surfaces.hook_server import serving


def raw_post(port: int, session: str, token: str, body: bytes) -> bytes:
    """One request as a stranger writes it: all of it at once, then read to the end."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(b"POST /hook/claude HTTP/1.0\r\n"
                     + f"X-Bullpen-Session: {session}\r\nX-Bullpen-Token: {token}\r\n"
                       f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def log_bytes(home: Path) -> int:
    return sum(size for name, size in logs.sizes(home).items() if name.startswith("hooks"))


def test_ten_thousand_refused_requests_leave_the_log_under_its_cap(room: Room) -> None:
    sessions.register(room.conn, "bob")
    body = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "x"}).encode()
    forged = "bob" + "x" * 4000  # a long session header: once logged whole, every time
    with serving(room.home) as port:
        for _ in range(10_000):
            assert raw_post(port, forged, "wrong", body).startswith(b"HTTP/1.0 403")
    assert log_bytes(room.home) < logs.CAP_BYTES
    text = (room.home / "logs" / "hooks.log").read_text()
    assert len(text.splitlines()) < 20
    assert "… (4003 chars)" in text
    assert "more refused requests were not logged" in text


def test_a_long_value_is_logged_as_a_prefix_with_its_length(room: Room) -> None:
    env = {"BULLPEN_HOME": str(room.home), "BULLPEN_SESSION": "bob"}
    from workers.surfaces import hooks

    hooks.log_line(env, "claude", "path " + "p" * 8_000_000 + " is outside the repository")
    [line] = (room.home / "logs" / "hooks.log").read_text().splitlines()
    assert len(line) < 1000 and "(8000031 chars)" in line


def test_a_log_rotates_at_its_cap_keeping_a_few_generations(tmp_path: Path) -> None:
    path = tmp_path / "hooks.log"
    for number in range(5000):
        logs.append_line(str(path), f"line {number} " + "y" * 100, cap=64 * 1024)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["hooks.log", "hooks.log.1", "hooks.log.2", "hooks.log.3"]
    assert all(p.stat().st_size < 64 * 1024 + 200 for p in tmp_path.iterdir())
    assert "line 4999 " in path.read_text()


def test_connections_that_never_finish_are_closed_and_honest_hooks_still_answered(
        room: Room, git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Long enough for the server to accept every idle connection before the first one
    # expires on a loaded machine: with 1 s, the first ones were closed before the cap was
    # reached under four CPU burners, and the request past the cap was answered.
    monkeypatch.setattr(hook_server, "READ_DEADLINE", 3.0)
    token = sessions.register(room.conn, "bob")
    read = json.dumps({"hook_event_name": "PostToolUse", "tool_name": "Read",
                       "cwd": str(git_repo), "tool_input": {"file_path": "README.md"}})
    with serving(room.home) as port:
        idle = [socket.create_connection(("127.0.0.1", port), timeout=10)
                for _ in range(hook_server.MAX_CONNECTIONS + 50)]
        idle[0].sendall(b"POST /hook/claude HTTP/1.0\r\n")  # a head that never ends
        started = time.monotonic()
        # Past the cap: refused at once, not queued behind the idle ones.
        assert raw_post(port, "bob", token, read.encode()).startswith(b"HTTP/1.0 503")
        # The idle ones are closed at their deadline; then an honest hook is answered.
        wait_until(lambda: answered(port, token, read), 10,
                   message="an answer once the idle connections' deadline passed")
        assert time.monotonic() - started < hook_server.READ_DEADLINE + 4
        for conn in idle[:hook_server.MAX_CONNECTIONS]:  # each told why it was closed
            conn.settimeout(5)
            assert conn.recv(100).startswith(b"HTTP/1.0 408")
        for conn in idle:
            conn.close()
    assert read_paths(room, "bob") == ["README.md"]


def answered(port: int, token: str, read: str) -> bool:
    try:
        return raw_post(port, "bob", token, read.encode()).startswith(b"HTTP/1.0 200")
    except OSError:
        return False


def read_paths(room: Room, session: str) -> list[str]:
    return sorted(path for path, _ in reads.of_session(room.conn, session))


def test_a_huge_file_path_leaves_every_log_under_its_cap_and_every_line_cut(
        git_repo: Path, tmp_path: Path) -> None:
    """A real coordinator's hook server fed a PostToolUse whose file_path is 8 MB: the
    read fails (the name is too long), and its traceback goes into coordinator.log. It
    used to be written whole, one 8 MB line in a log that promises a 1 MiB cap."""
    import yaml

    from board.db import write
    from tests.rooms import live_room
    from workers.agents import agent_files

    with live_room(git_repo, tmp_path / "logs") as live:
        (git_repo / "bullpen.yaml").write_text(yaml.safe_dump({
            "layout": "windows", "sessions": {"helper": {"agent": live.agent("helper")}}}))
        live.cli("up", "--detach", "--no-dashboard")
        port = wait_until(lambda: agent_files.hook_port(live.home), 15,
                          message="the coordinator to serve hooks")
        conn = live.db()
        with write(conn):
            token = sessions.register(conn, "probe")
        conn.close()
        body = json.dumps({"hook_event_name": "PostToolUse", "tool_name": "Read",
                           "cwd": str(git_repo),
                           "tool_input": {"file_path": "/" + "p" * 8_000_000}}).encode()
        answer = wait_until(lambda: _posted(port, "probe", token, body), 15,
                            message="the hook server to answer")
        assert answer.startswith(b"HTTP/1.0 200")
        coordinator_log = live.home / logs.DIR_NAME / "coordinator.log"
        wait_until(lambda: "a hook request failed" in coordinator_log.read_text(), 15,
                   message="the failure to be logged")
        for name, size in logs.sizes(live.home).items():
            assert size < logs.CAP_BYTES, f"{name} holds {size} bytes"
            text = (live.home / logs.DIR_NAME / name).read_text()
            longest = max(len(line) for line in text.splitlines())
            assert longest <= logs.LINE_CHARS + 40, f"{name} has a line of {longest}"
        assert "File name too long" in coordinator_log.read_text()


def _posted(port: int, session: str, token: str, body: bytes) -> bytes | None:
    try:
        return raw_post(port, session, token, body)
    except OSError:
        return None  # not listening yet
