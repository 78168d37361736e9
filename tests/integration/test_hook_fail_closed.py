"""The hook before a command runs fails closed: whatever goes wrong — the store locked by
another process, a command too long to check, text that is not text, an exception in the
decision, a patterns file that never answers — the agent is refused, promptly, by the
real `bullpen hook claude` / `bullpen hook hermes` process and by the real hook server;
the refusal is audited once the store takes it, or its failure logged. Claude and Hermes
run whatever their hook does not refuse, and a hook they gave up on counts as allowed."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from board import audit, sessions
from board.home import DB_NAME
from board.room import Room
from tests.cli_runner import identity
from tests.store_lock import store_locked as locked_by_another_process
from tests.waiting import wait_until
from workers.agents import agent_files, command_policy, pre_tool
from workers.surfaces import hooks
from workers.surfaces.hook_server import serving

PROMPT = pre_tool.DECIDE_SECONDS  # every answer below comes within the decision's bound
COULD_NOT = "bullpen could not check this command"


def store_locked(room: Room, mode: str = "EXCLUSIVE") -> contextlib.AbstractContextManager:
    """The room's SQLite store write-locked by another process while the block runs."""
    return locked_by_another_process(room.home / DB_NAME, mode)


@pytest.fixture
def bob_env(room: Room) -> dict[str, str]:
    """Session bob's hook environment; the room denies `npm publish*` beside the floor."""
    env = identity(room.home, "bob", sessions.register(room.conn, "bob"))
    command_policy.store(room.home, "bob", command_policy.patterns(["npm publish*"]))
    return env


def claude_call(command: str, cwd: Path) -> dict:
    """Claude Code's PreToolUse payload for a Bash command (2.1.x field order)."""
    return {"session_id": "c0ffee", "transcript_path": "/tmp/t.jsonl", "cwd": str(cwd),
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": command}}


def hermes_call(command: str, cwd: Path) -> dict:
    """Hermes 0.19's pre_tool_call payload for a terminal command (agent/shell_hooks.py)."""
    return {"hook_event_name": "pre_tool_call", "tool_name": "terminal",
            "tool_input": {"command": command}, "session_id": "20260101_120000_abcd",
            "cwd": str(cwd), "extra": {"task_id": "t1", "tool_call_id": "c1"}}


def hook(kind: str, text: str | bytes, env: dict[str, str], cwd: Path,
         ) -> tuple[str, float]:
    """Run the real `bullpen hook KIND`: (what it printed, seconds it took). It exits 0
    and writes nothing on stderr, whatever it was given."""
    start = time.monotonic()
    done = subprocess.run([str(Path(sys.executable).parent / "bullpen"), "hook", kind],
                          input=text.encode() if isinstance(text, str) else text,
                          capture_output=True, env={**os.environ, **env}, cwd=cwd,
                          timeout=60)
    took = time.monotonic() - start
    assert (done.returncode, done.stderr) == (0, b""), done
    return done.stdout.decode(), took


def refusal_of(kind: str, printed: str) -> str:
    """The reason the hook's output refuses the command with (AssertionError if it lets
    the command run)."""
    assert printed.strip(), "the hook let the command run"
    answer = json.loads(printed)
    if kind == "claude":
        out = answer["hookSpecificOutput"]
        assert (out["hookEventName"], out["permissionDecision"]) == ("PreToolUse", "deny")
        return out["permissionDecisionReason"]
    assert answer["decision"] == "block", answer
    return answer["reason"]


def refusals(room: Room) -> list[tuple[str, str, str]]:
    return [(e.actor, e.target or "", e.detail or "") for e in audit.entries(room.conn)
            if e.action == hooks.DENIED_ACTION]


def post(port: int, kind: str, body: bytes, env: dict[str, str]) -> tuple[int, str, float]:
    """One request to the hook server, as the forwarder sends it: (status, body, seconds)."""
    start = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("POST", f"/hook/{kind}", body,
                 {"Content-Type": "application/json", "X-Bullpen-Session": "bob",
                  "X-Bullpen-Token": env["BULLPEN_TOKEN"]})
    response = conn.getresponse()
    status, text = response.status, response.read().decode()
    conn.close()
    return status, text, time.monotonic() - start


def hooks_log(room: Room) -> str:
    path = room.home / "logs" / hooks.LOG_NAME
    return path.read_text() if path.exists() else ""


def told(pattern: str) -> str:
    """How the agent's reason names what refused it: the floor's rule in words, or the
    room's pattern quoted."""
    return pattern.removeprefix("floor: ") if pattern.startswith("floor: ") else repr(pattern)


@pytest.mark.parametrize("kind", ["claude", "hermes"])
@pytest.mark.parametrize(("command", "pattern"), [("git push --force origin main",
                                                   "floor: a forced push"),
                                                  ("npm publish", "npm publish*")])
@pytest.mark.parametrize("coordinator", [False, True], ids=["alone", "served"])
def test_a_denied_command_is_refused_at_once_while_another_process_locks_the_store(
        room: Room, git_repo: Path, bob_env: dict[str, str], kind: str, command: str,
        pattern: str, coordinator: bool) -> None:
    """The PO saw a `git push --force` allowed after 8.25 s (forwarded to a coordinator
    waiting on the lock). Alone, the hook used to wait 10 s for the lock to audit first."""
    call = (claude_call if kind == "claude" else hermes_call)(command, git_repo)
    with contextlib.ExitStack() as stack:
        if coordinator:
            stack.enter_context(serving(room.home))
        with store_locked(room):
            printed, took = hook(kind, json.dumps(call), bob_env, git_repo)
            print(f"\n{kind} hook ({'served' if coordinator else 'alone'}), store locked:"
                  f" {command!r} answered in {took:.2f} s")
            assert told(pattern) in refusal_of(kind, printed)
            assert took < PROMPT, f"refused only after {took:.2f} s"
            assert refusals(room) == []  # the store is not taking anything yet
    entries = wait_until(lambda: refusals(room), 30, message="the refusal to be audited")
    assert entries == [("bob", command, f"denied by pattern {pattern!r} ({kind}'s hook)")]


def test_the_hook_server_refuses_at_once_while_another_process_locks_the_store(
        room: Room, git_repo: Path, bob_env: dict[str, str]) -> None:
    """A PreToolUse sent to the server itself: answered before the store is touched."""
    body = json.dumps(claude_call("npm publish --tag x", git_repo)).encode()
    with serving(room.home) as port, store_locked(room, "IMMEDIATE"):
        status, printed, took = post(port, "claude", body, bob_env)
        print(f"\nhook server, store locked: answered in {took:.2f} s")
        assert status == 200 and "'npm publish*'" in refusal_of("claude", printed)
        assert took < PROMPT
    wait_until(lambda: refusals(room), 30, message="the refusal to be audited")


@pytest.mark.both_stores  # the audit process writes to either store
@pytest.mark.parametrize("kind", ["claude", "hermes"])
@pytest.mark.parametrize("size", [2_000_000, 9_000_000])
@pytest.mark.parametrize("coordinator", [False, True], ids=["alone", "served"])
def test_a_command_too_long_to_check_is_refused(room: Room, git_repo: Path,
                                                bob_env: dict[str, str], kind: str,
                                                size: int, coordinator: bool) -> None:
    """The PO saw a 2 MB command allowed after 8.19 s with no audit entry and a 9 MB one
    allowed in 0.35 s (the server refused the body; the client printed nothing)."""
    command = "echo " + "x" * size
    call = (claude_call if kind == "claude" else hermes_call)(command, git_repo)
    with contextlib.ExitStack() as stack:
        if coordinator:
            stack.enter_context(serving(room.home))
        printed, took = hook(kind, json.dumps(call), bob_env, git_repo)
    print(f"\n{kind} hook ({'served' if coordinator else 'alone'}): a {size}-byte command"
          f" refused in {took:.2f} s")
    reason = refusal_of(kind, printed)
    assert COULD_NOT in reason and f"a command of {size + 5} characters" in reason
    assert took < PROMPT
    [(actor, target, detail)] = wait_until(lambda: refusals(room), 30,
                                           message="the refusal to be audited")
    assert actor == "bob" and detail.startswith("could not be checked: a command of")
    assert target.startswith("echo xxx") and len(target) <= pre_tool.WHY_CHARS


def test_the_hook_server_refuses_a_command_too_long_to_check(
        room: Room, git_repo: Path, bob_env: dict[str, str]) -> None:
    body = json.dumps(claude_call("echo " + "x" * 2_000_000, git_repo)).encode()
    with serving(room.home) as port:
        status, printed, _ = post(port, "claude", body, bob_env)
    assert status == 200 and COULD_NOT in refusal_of("claude", printed)


@pytest.mark.both_stores  # the audit process writes to either store
@pytest.mark.parametrize("kind", ["claude", "hermes"])
@pytest.mark.parametrize("command", ["echo \ud800", "git push --force \ud800"])
@pytest.mark.parametrize("coordinator", [False, True], ids=["alone", "served"])
def test_a_lone_surrogate_is_refused_without_a_traceback(room: Room, git_repo: Path,
                                                         bob_env: dict[str, str], kind: str,
                                                         command: str,
                                                         coordinator: bool) -> None:
    """As JSON `"\\ud800"` on stdin: the PO saw it allowed (the audit write raised
    UnicodeEncodeError). It is refused, audited with the surrogate escaped."""
    call = (claude_call if kind == "claude" else hermes_call)(command, git_repo)
    text = json.dumps(call)  # ASCII: the surrogate travels as \ud800
    assert "\\ud800" in text
    with contextlib.ExitStack() as stack:
        if coordinator:
            stack.enter_context(serving(room.home))
        printed, _ = hook(kind, text, bob_env, git_repo)
    assert COULD_NOT in refusal_of(kind, printed)
    [(_, target, detail)] = wait_until(lambda: refusals(room), 30,
                                       message="the refusal to be audited")
    assert target == command.replace("\ud800", "\\ud800") and "not valid text" in detail
    assert "Traceback" not in hooks_log(room)


def test_bytes_that_are_not_utf8_are_refused(room: Room, git_repo: Path,
                                             bob_env: dict[str, str]) -> None:
    text = json.dumps(claude_call("echo SPOT", git_repo)).encode()
    printed, _ = hook("claude", text.replace(b"SPOT", b"\xff\xfe"), bob_env, git_repo)
    assert COULD_NOT in refusal_of("claude", printed)


@pytest.mark.both_stores  # the audit process writes to either store
def test_the_hook_server_refuses_a_lone_surrogate(room: Room, git_repo: Path,
                                                  bob_env: dict[str, str]) -> None:
    body = json.dumps(claude_call("git push --force \ud800", git_repo)).encode()
    with serving(room.home) as port:
        status, printed, _ = post(port, "claude", body, bob_env)
    assert status == 200 and COULD_NOT in refusal_of("claude", printed)
    wait_until(lambda: refusals(room), 30, message="the refusal to be audited")


@pytest.mark.parametrize("kind", ["claude", "hermes"])
def test_an_exception_inside_the_decision_refuses(room: Room, git_repo: Path,
                                                  bob_env: dict[str, str], kind: str) -> None:
    """The session's patterns file damaged (not UTF-8): reading it raises inside the
    decision, in the real hook process. It used to be logged and the command allowed."""
    (agent_files.agent_dir(room.home, "bob") / command_policy.DENY).write_bytes(b"[\xff]")
    call = (claude_call if kind == "claude" else hermes_call)("ls -la", git_repo)
    printed, _ = hook(kind, json.dumps(call), bob_env, git_repo)
    reason = refusal_of(kind, printed)
    assert COULD_NOT in reason and "UnicodeDecodeError" in reason
    wait_until(lambda: "refused: could not be checked: UnicodeDecodeError" in hooks_log(room),
               30, message="the failure to be logged")


def test_an_exception_inside_the_servers_decision_refuses(
        room: Room, git_repo: Path, bob_env: dict[str, str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(command: str, deny: object) -> None:
        raise RuntimeError("the policy broke")

    monkeypatch.setattr(command_policy, "check", broken)
    body = json.dumps(claude_call("ls", git_repo)).encode()
    with serving(room.home) as port:
        status, printed, _ = post(port, "claude", body, bob_env)
    reason = refusal_of("claude", printed)
    assert status == 200 and "RuntimeError: the policy broke" in reason


def test_a_patterns_file_that_would_never_answer_is_a_refusal_at_once(
        room: Room, git_repo: Path, bob_env: dict[str, str]) -> None:
    """The patterns file a FIFO nobody writes: reading it would never end (the hook used
    to hang for good, and Claude runs a command whose hook it gave up on)."""
    deny = agent_files.agent_dir(room.home, "bob") / command_policy.DENY
    deny.unlink()
    os.mkfifo(deny)
    printed, took = hook("claude", json.dumps(claude_call("ls", git_repo)), bob_env, git_repo)
    assert "patterns file is not a regular file" in refusal_of("claude", printed)
    assert took < PROMPT


def test_a_check_slower_than_its_bound_is_a_refusal_in_time(
        room: Room, git_repo: Path, bob_env: dict[str, str]) -> None:
    """Ten thousand patterns against a command of 64,000 simple commands: minutes of
    matching. The hook refuses once its bound passed, long before the agent's timeout."""
    command_policy.store(room.home, "bob", [f"tool{n} --flag*" for n in range(10_000)])
    command = "a;" * 64_000
    printed, took = hook("claude", json.dumps(claude_call(command, git_repo)), bob_env,
                         git_repo)
    print(f"\na check slower than its bound: refused in {took:.2f} s")
    reason = refusal_of("claude", printed)
    assert f"the check took over {pre_tool.DECIDE_SECONDS:g} s" in reason
    assert took < pre_tool.DECIDE_SECONDS + 3


@pytest.mark.both_stores  # the audit process writes to either store
def test_a_refusal_that_cannot_be_audited_is_logged_and_still_a_refusal(
        room: Room, git_repo: Path, bob_env: dict[str, str]) -> None:
    """A forged token: the command is refused all the same, and nothing is audited in
    bob's name; the log says why."""
    forged = {**bob_env, "BULLPEN_TOKEN": "forged"}
    printed, _ = hook("claude", json.dumps(claude_call("npm publish", git_repo)), forged,
                      git_repo)
    assert "'npm publish*'" in refusal_of("claude", printed)
    wait_until(lambda: "(not audited: Refused: BULLPEN_TOKEN does not match" in hooks_log(room),
               30, message="the audit failure to be logged")
    assert refusals(room) == []


def test_a_command_the_policy_allows_runs_and_nothing_is_audited(
        room: Room, git_repo: Path, bob_env: dict[str, str]) -> None:
    with store_locked(room):
        printed, took = hook("claude", json.dumps(claude_call("npm test", git_repo)), bob_env,
                             git_repo)
    assert printed == "" and took < PROMPT
    assert refusals(room) == []


def test_a_failure_of_the_answer_itself_refuses(room: Room, git_repo: Path,
                                                bob_env: dict[str, str],
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Should answering itself raise, in the hook process or the server, the command is
    refused: a traceback (exit 1) or an error status would be an allow."""
    import io

    from workers.surfaces import hook_entry, pre_tool_hook

    def broken(kind: str, text: str, identity: object) -> None:
        raise MemoryError("no room left")

    monkeypatch.setattr(pre_tool_hook, "answer", broken)
    body = json.dumps(claude_call("ls", git_repo))
    for name, value in bob_env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(body.encode())))
    assert hook_entry.main("claude") == 0
    assert "MemoryError: no room left" in refusal_of("claude", capsys.readouterr().out)
    with serving(room.home) as port:
        status, printed, _ = post(port, "claude", body.encode(), bob_env)
    assert status == 200 and "MemoryError: no room left" in refusal_of("claude", printed)
