"""Agents' hooks over HTTP from the coordinator's side (workers.surfaces.hook_server), and
`bullpen hook` forwarding to it: a real room, a real server on 127.0.0.1, the real
console script."""

from __future__ import annotations

import http.client
import json
import os
import pwd
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from board import notes, reads, sessions
from board.db import is_postgres, write
from board.errors import Refused
from board.identity import hook_key, resolve_caller
from board.room import Room
from tests.cli_runner import identity, run_cli
from tests.waiting import wait_until
from workers.agents import agent_files
from workers.surfaces.hook_server import serving

pytestmark = pytest.mark.both_stores


def post(port: int, kind: str, payload: dict, session: str, token: str = "",
         key: str = "") -> tuple[int, str]:
    """One hook call, proven by the token (as the forwarder does) or by the hook key (as
    Claude Code's HTTP hook does)."""
    proof = {"X-Bullpen-Token": token} if token else {"X-Bullpen-Hook-Key": key}
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", f"/hook/{kind}", json.dumps(payload),
                 {"Content-Type": "application/json", "X-Bullpen-Session": session, **proof})
    response = conn.getresponse()
    result = response.status, response.read().decode()
    conn.close()
    return result


def read_paths(room: Room, session: str) -> list[str]:
    return sorted(path for path, _ in reads.of_session(room.conn, session))


def test_http_hooks_record_reads_and_hand_notes_as_the_command_hook(room: Room,
                                                                  git_repo: Path) -> None:
    token = sessions.register(room.conn, "bob")
    sessions.register(room.conn, "alice")
    note = notes.send(room.conn, "alice", "bob", "the API moved to v2")
    base = {"session_id": "abc", "cwd": str(git_repo)}
    with serving(room.home) as port:
        assert port == agent_files.hook_port(room.home)
        status, body = post(port, "claude", {**base, "hook_event_name": "PostToolUse",
                                             "tool_name": "Read", "tool_input": {
                                                 "file_path": str(git_repo / "README.md")}},
                            "bob", token)
        assert (status, body) == (200, "")
        status, body = post(port, "claude", {**base, "hook_event_name": "UserPromptSubmit",
                                             "prompt": "go on"}, "bob", token)
    assert status == 200
    context = json.loads(body)["hookSpecificOutput"]["additionalContext"]
    assert context.startswith(f"[bullpen note {note.id} from alice]\n    the API moved to v2")
    assert read_paths(room, "bob") == ["README.md"]
    assert notes.delivery_state(room.conn, note.id, "bob") == "handed"


def test_the_hook_key_answers_the_hook_after_a_tool_call_and_nothing_else(
        room: Room, git_repo: Path) -> None:
    """What Claude's HTTP hook carries: were another program listening on the port, the
    key would let it record reads for the session, not take its notes or act as it."""
    token = sessions.register(room.conn, "bob")
    sessions.register(room.conn, "alice")
    note = notes.send(room.conn, "alice", "bob", "secret plan")
    key = hook_key(token)
    assert token not in key
    read = {"session_id": "abc", "cwd": str(git_repo), "hook_event_name": "PostToolUse",
            "tool_name": "Read", "tool_input": {"file_path": str(git_repo / "README.md")}}
    prompt = {"session_id": "abc", "cwd": str(git_repo), "hook_event_name": "UserPromptSubmit",
              "prompt": "go on"}
    with serving(room.home) as port:
        assert post(port, "claude", read, "bob", key=key) == (200, "")
        assert post(port, "claude", prompt, "bob", key=key) == (403, "")
        assert post(port, "hermes", {**prompt, "hook_event_name": "pre_llm_call"}, "bob",
                    key=key) == (403, "")
        assert post(port, "claude", read, "alice", key=key) == (403, "")  # bob's, not hers
        assert post(port, "claude", read, "bob", key=hook_key("forged")) == (403, "")
        assert post(port, "claude", read, "bob", key=token) == (403, "")  # not a key
    assert read_paths(room, "bob") == ["README.md"] and read_paths(room, "alice") == []
    assert notes.delivery_state(room.conn, note.id, "bob") == "queued"
    with pytest.raises(Refused):  # nor does it pass as a token anywhere else
        resolve_caller(room.conn, {"BULLPEN_SESSION": "bob", "BULLPEN_TOKEN": key})


def test_a_wrong_token_or_no_session_is_refused_and_changes_nothing(room: Room,
                                                                   git_repo: Path) -> None:
    sessions.register(room.conn, "bob")
    sessions.register(room.conn, "alice")
    note = notes.send(room.conn, "alice", "bob", "secret plan")
    prompt = {"hook_event_name": "UserPromptSubmit", "cwd": str(git_repo), "prompt": "x"}
    with serving(room.home) as port:
        assert post(port, "claude", prompt, "bob", "forged") == (403, "")
        assert post(port, "claude", prompt, "", "") == (403, "")
        assert post(port, "claude", prompt, "nobody", "forged") == (403, "")
        assert post(port, "codex-nope", prompt, "bob", "forged")[0] == 404
    assert notes.delivery_state(room.conn, note.id, "bob") == "queued"
    log = (room.home / "logs" / "hooks.log").read_text()
    assert "does not match session 'bob'" in log


def test_bullpen_hook_forwards_to_the_server_without_opening_the_store(
        room: Room, git_repo: Path) -> None:
    """With the coordinator serving hooks, `bullpen hook` is a socket call: the same
    answer, and no store module loaded in the hook's process."""
    env = identity(room.home, "bob", sessions.register(room.conn, "bob"))
    sessions.register(room.conn, "alice")
    note = notes.send(room.conn, "alice", "bob", "ping")
    payload = json.dumps({"hook_event_name": "pre_llm_call", "cwd": str(git_repo),
                          "session_id": "s1", "extra": {"task_id": "t1"}})
    probe = ("import sys; from tui.cli import main; main(['hook', 'hermes']);"
             " print(*(name in sys.modules for name in ('board.db', 'sqlite3', 'argparse')),"
             " file=sys.stderr)")
    with serving(room.home):
        result = subprocess.run([sys.executable, "-c", probe], input=payload, text=True,
                                capture_output=True, env={**env, "PATH": "/usr/bin:/bin"},
                                cwd=git_repo, timeout=60)
        again = run_cli("hook", "hermes", cwd=git_repo, env=env, input=payload)
    assert result.stderr.split() == ["False", "False", "False"]
    assert json.loads(result.stdout)["context"].startswith(f"[bullpen note {note.id} from alice]")
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")  # taken once
    assert notes.delivery_state(room.conn, note.id, "bob") == "handed"


def test_with_the_coordinator_down_the_hook_is_handled_in_its_own_process(
        room: Room, git_repo: Path) -> None:
    """A recorded port with nothing listening: the command hook works as before, and an
    HTTP hook (which then fails in Claude, non-blocking) has handed nothing."""
    env = identity(room.home, "bob", token := sessions.register(room.conn, "bob"))
    sessions.register(room.conn, "alice")
    with serving(room.home) as port:
        pass  # the port stays recorded, as after a coordinator stopped
    assert agent_files.hook_port(room.home) == port
    note = notes.send(room.conn, "alice", "bob", "still here")
    with pytest.raises(ConnectionRefusedError):
        post(port, "claude", {"hook_event_name": "UserPromptSubmit", "cwd": str(git_repo)},
             "bob", token)
    assert notes.delivery_state(room.conn, note.id, "bob") == "queued"
    read = json.dumps({"hook_event_name": "PostToolUse", "tool_name": "Read",
                       "cwd": str(git_repo), "tool_input": {"file_path": "src/app.py"}})
    result = run_cli("hook", "claude", cwd=git_repo, env=env, input=read)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert read_paths(room, "bob") == ["src/app.py"]


def test_the_hook_handled_in_its_own_process_loads_only_what_the_call_needs(
        room: Room, git_repo: Path) -> None:
    """No coordinator: the hook after a tool call records the read in its own process,
    without argparse, dataclasses (inspect), typing, shlex, OpenSSL, the note, loop-guard
    and audit modules, the command policy (a Read has no command), the plan modules,
    other kinds' adapters or the generic and shell readers (bench/hook_bench.py times
    it against the bare interpreter). On PostgreSQL, the driver's own imports are its."""
    env = identity(room.home, "bob", sessions.register(room.conn, "bob"))
    unwanted = ("argparse", "dataclasses", "inspect", "typing", "shlex", "hashlib",
                "board.notes", "board.deliveries", "workers.agents.hermes.adapter",
                "workers.agents.codex.adapter", "workers.agents.readers.generic",
                "workers.agents.readers.shell", "workers.agents.framing",
                "workers.agents.command_policy", "workers.agents.plan_setup", "board.chains",
                "board.audit")
    if is_postgres(room.conn):
        drivers = subprocess.run(
            [sys.executable, "-c", f"import sys, psycopg; print(*(name for name in"
             f" {unwanted!r} if name in sys.modules))"], text=True, capture_output=True,
            check=True).stdout.split()
        unwanted = tuple(name for name in unwanted if name not in drivers)
    read = json.dumps({"hook_event_name": "PostToolUse", "tool_name": "Read",
                       "cwd": str(git_repo), "tool_input": {"file_path": "src/app.py"}})
    probe = ("import sys; from tui.cli import main; main(['hook', 'claude']);"
             f" print(*(name for name in {unwanted!r} if name in sys.modules), file=sys.stderr)")
    assert agent_files.hook_port(room.home) is None  # nothing to forward to
    result = subprocess.run([sys.executable, "-c", probe], input=read, text=True,
                            capture_output=True, env={**env, "PATH": "/usr/bin:/bin"},
                            cwd=git_repo, timeout=60)
    assert (result.stdout, result.stderr.split()) == ("", [])
    assert read_paths(room, "bob") == ["src/app.py"]  # handled here, for real


def test_a_damaged_port_file_leaves_the_hook_to_its_own_process(
        room: Room, git_repo: Path) -> None:
    """A port no socket can have (a hand-edited or damaged hooks.port): no traceback in
    the agent's pane, the call handled as with no coordinator."""
    env = identity(room.home, "bob", sessions.register(room.conn, "bob"))
    (room.home / agent_files.HOOK_PORT).write_text("70000\n")
    read = json.dumps({"hook_event_name": "PostToolUse", "tool_name": "Read",
                       "cwd": str(git_repo), "tool_input": {"file_path": "src/app.py"}})
    result = run_cli("hook", "claude", cwd=git_repo, env=env, input=read)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert read_paths(room, "bob") == ["src/app.py"]


def test_a_restarted_coordinator_serves_the_recorded_port_again(room: Room) -> None:
    with serving(room.home) as first:
        pass
    with serving(room.home) as second:
        assert second == first


def test_garbage_is_logged_and_the_server_keeps_serving(room: Room, git_repo: Path) -> None:
    token = sessions.register(room.conn, "bob")
    with serving(room.home) as port:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("POST", "/hook/claude", "not json", {"X-Bullpen-Session": "bob",
                                                          "X-Bullpen-Token": token})
        first = conn.getresponse()
        assert (first.status, first.read()) == (200, b"")
        conn.close()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.putrequest("POST", "/hook/claude")
        conn.putheader("Content-Length", "lots")
        conn.endheaders()
        assert conn.getresponse().status == 400
        conn.close()
        read = {"hook_event_name": "PostToolUse", "tool_name": "Read", "cwd": str(git_repo),
                "tool_input": {"file_path": "README.md"}}
        assert post(port, "claude", read, "bob", token) == (200, "")
    assert "payload is not JSON" in (room.home / "logs" / "hooks.log").read_text()
    assert read_paths(room, "bob") == ["README.md"]


def test_a_caller_that_left_before_its_answer_is_handed_nothing(room: Room,
                                                               git_repo: Path) -> None:
    """The hook's caller gives up (Claude's timeout, a killed `bullpen hook`) while the
    store is busy: when the server gets to it, the note stays queued for the next turn."""
    token = sessions.register(room.conn, "bob")
    sessions.register(room.conn, "alice")
    note = notes.send(room.conn, "alice", "bob", "do not lose me")
    body = json.dumps({"hook_event_name": "UserPromptSubmit", "cwd": str(git_repo),
                       "prompt": "go"}).encode()
    with serving(room.home) as port:
        with write(room.conn):  # the store busy: the server waits for its write lock
            caller = socket.create_connection(("127.0.0.1", port), timeout=10)
            caller.sendall(b"POST /hook/claude HTTP/1.0\r\nX-Bullpen-Session: bob\r\n"
                           + f"X-Bullpen-Token: {token}\r\n".encode()
                           + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            caller.close()
        prompt = {"hook_event_name": "UserPromptSubmit", "cwd": str(git_repo), "prompt": "x"}
        wait_until(lambda: "left before the answer" in (
            (room.home / "logs" / "hooks.log").read_text()
            if (room.home / "logs" / "hooks.log").exists() else ""), 10,
            message="the server to give up on the caller that left")
        assert notes.delivery_state(room.conn, note.id, "bob") == "queued"
        status, answer = post(port, "claude", prompt, "bob", token)  # the next turn has it
    assert status == 200 and "do not lose me" in answer


@pytest.mark.skipif(not sys.platform.startswith("linux") or os.geteuid() != 0,
                    reason="needs root, to run a program on the port as another user (Linux)")
def test_the_forwarder_sends_nothing_to_another_users_program_on_the_port(
        room: Room, git_repo: Path) -> None:
    """The coordinator is down and another user's program took the room's hook port: the
    hook neither sends it the token nor prints its answer; it hands the note itself."""
    env = identity(room.home, "bob", sessions.register(room.conn, "bob"))
    sessions.register(room.conn, "alice")
    note = notes.send(room.conn, "alice", "bob", "for bob only")
    heard, stranger = _stranger("nobody", agent_files.reserve_hook_port(room.home))
    try:
        prompt = json.dumps({"hook_event_name": "UserPromptSubmit", "cwd": str(git_repo),
                             "prompt": "go"})
        result = run_cli("hook", "claude", cwd=git_repo, env=env, input=prompt)
        assert result.returncode == 0, result.stderr
        assert "for bob only" in result.stdout and "INJECTED" not in result.stdout
        assert _read_to_end(heard) == b"connected\n"  # closed on before a byte was sent
    finally:
        os.kill(stranger, signal.SIGKILL)
        os.waitpid(stranger, 0)
    assert notes.delivery_state(room.conn, note.id, "bob") == "handed"


def _read_to_end(fd: int, timeout: float = 10.0) -> bytes:
    """All a pipe gives until its writer closes it (AssertionError after `timeout` s)."""
    chunks = []
    deadline = time.monotonic() + timeout
    try:
        while chunk := _read_when_ready(fd, deadline - time.monotonic()):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def _read_when_ready(fd: int, timeout: float) -> bytes:
    if not select.select([fd], [], [], max(0.0, timeout))[0]:
        raise AssertionError("timed out waiting for the stranger's report")
    return os.read(fd, 65536)


def _stranger(user: str, port: int) -> tuple[int, int]:
    """Another user's program listening on 127.0.0.1:`port` (a forked child: that user
    cannot run this test's interpreter): it reports each connection and what it was
    sent on the returned pipe, and answers any hook with text for the agent. Returns
    (that pipe's read end, its pid) once it listens."""
    ready, ready_w = os.pipe()
    heard, heard_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: only os and socket calls, then _exit
        try:
            os.setuid(pwd.getpwnam(user).pw_uid)
            listener = socket.socket()
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", port))
            listener.listen()
            os.write(ready_w, b"1")
            while True:
                conn, _ = listener.accept()
                os.write(heard_w, b"connected\n")
                if data := conn.recv(65536):
                    os.write(heard_w, data)
                    body = b'{"hookSpecificOutput": {"additionalContext": "INJECTED"}}'
                    conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n%s"
                                 % (len(body), body))
                conn.close()
                os.close(heard_w)
        finally:
            os._exit(0)
    os.close(ready_w)
    os.close(heard_w)
    assert os.read(ready, 1) == b"1", "the stranger did not start listening"
    os.close(ready)
    return heard, pid
