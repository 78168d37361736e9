"""`deny:` in a room: bullpen.yaml's bad values refused by line; a session whose agent
cannot enforce it is named once by `up` and by doctor; every launch keeps the room's
patterns (with the floor) for its hooks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from board import audit, sessions
from board.identity import Caller
from board.room import Room
from tests.cli_runner import run_cli
from tests.rooms import live_room
from workers.agents import command_policy
from workers.room import config
from workers.surfaces import hooks


def write(repo: Path, text: str) -> None:
    (repo / "bullpen.yaml").write_text(text)


@pytest.mark.parametrize(("text", "words"), [
    ("deny: {a: b}\n", "bullpen.yaml:1: deny: expected a list of command patterns"),
    ("deny:\n  - '*'\n", "bullpen.yaml:2: deny: '*' would deny every command"),
    ("deny:\n  - [a]\n", "bullpen.yaml:2: deny: expected a text value"),
    ('deny: ["a\\u0007b"]\n', "bullpen.yaml:1: deny: a pattern must be one printable"),
])
def test_bad_deny_values_are_refused_by_line(git_repo: Path, tmp_path: Path, text: str,
                                             words: str) -> None:
    write(git_repo, text)
    with live_room(git_repo, tmp_path / "logs"):  # brought down, should it start
        done = run_cli("up", "--detach", "--no-dashboard", cwd=git_repo)
    assert done.returncode == 2, done
    assert done.stderr.strip().startswith(f"bullpen: {words}"), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not done.stdout


def test_deny_reads_one_pattern_or_a_list(git_repo: Path) -> None:
    write(git_repo, "deny: npm publish*\n")
    assert config.load(git_repo).deny == ("npm publish*",)
    write(git_repo, "deny:\n  - 'git  push --force*'\n  - git push --force*\n  - make x\n")
    assert config.load(git_repo).deny == ("git push --force*", "make x")
    write(git_repo, "deny:\n")
    assert config.load(git_repo).deny == ()


def test_up_and_doctor_name_the_sessions_deny_cannot_hold(git_repo: Path,
                                                          tmp_path: Path) -> None:
    with live_room(git_repo, tmp_path / "logs") as live:
        plan = {"layout": "windows", "deny": ["npm publish*"],
                "sessions": {"helper": {"agent": live.agent("helper")}}}
        write(git_repo, yaml.safe_dump(plan))
        up = live.cli("up", "--detach", "--no-dashboard").stdout
        assert up.count("warning: deny: is not enforced for helper") == 1, up
        # The launch kept the room's patterns, the floor first, for the session's hooks.
        assert command_policy.stored(live.home, "helper") == (*command_policy.FLOOR,
                                                              "npm publish*")
        findings = json.loads(live.cli("doctor", "--json", check=False).stdout)
        said = [f for f in findings if f["area"] == "policy"]
        # A lever that does not hold is a problem, not "ok" followed by "all good".
        assert len(said) == 1 and not said[0]["ok"] and "helper" in said[0]["what"]
        assert said[0]["fix"] and not said[0]["what"].startswith("warning")
        text = live.cli("doctor", check=False).stdout
        assert "all good" not in text and "FAIL  policy" in text


def test_a_room_without_deny_says_nothing_of_it(git_repo: Path, tmp_path: Path) -> None:
    with live_room(git_repo, tmp_path / "logs") as live:
        write(git_repo, yaml.safe_dump({"layout": "windows", "sessions": {
            "helper": {"agent": live.agent("helper")}}}))
        assert "deny" not in live.cli("up", "--detach", "--no-dashboard").stdout


@pytest.fixture
def bob(room: Room) -> Room:
    sessions.register(room.conn, "bob")
    command_policy.store(room.home, "bob", command_policy.patterns(["npm publish*"]))
    return Room(room.home, room.conn, Caller("bob"))


def claude_call(tool: str, tool_input: dict) -> dict:
    return {"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input,
            "cwd": "/tmp", "session_id": "s"}


def refusals(room: Room) -> list[tuple]:
    return [(e.actor, e.action, e.target, e.outcome, e.detail) for e in audit.entries(room.conn)
            if e.action == hooks.DENIED_ACTION]


def test_claudes_hook_refuses_a_denied_command_and_audits_it(bob: Room) -> None:
    answer = hooks.handler("claude")(claude_call("Bash", {"command": "npm publish"}), bob)
    assert answer is not None
    out = answer["hookSpecificOutput"]
    assert (out["hookEventName"], out["permissionDecision"]) == ("PreToolUse", "deny")
    assert "'npm publish*'" in out["permissionDecisionReason"]
    assert refusals(bob) == [("bob", "run command", "npm publish", "refused",
                              "denied by pattern 'npm publish*' (claude's hook)")]


def test_claudes_hook_lets_other_commands_and_tools_through(bob: Room) -> None:
    for tool, tool_input in (("Bash", {"command": "npm test"}),
                             ("Write", {"file_path": "/tmp/x", "content": "npm publish"}),
                             ("Bash", {})):
        assert hooks.handler("claude")(claude_call(tool, tool_input), bob) is None
    assert refusals(bob) == []


def test_a_long_command_is_cut_in_the_audit(bob: Room) -> None:
    command = "npm publish " + "x" * 1000
    hooks.handler("claude")(claude_call("Bash", {"command": command}), bob)
    target = refusals(bob)[0][2]
    assert len(target) == command_policy.COMMAND_CHARS and target.endswith("…")


def test_a_hermes_refusal_is_audited_and_answered_with_nothing(bob: Room) -> None:
    message = ("BLOCKED: this command matches the user-defined deny rule 'npm publish*'"
               " (approvals.deny in config.yaml). It cannot be executed")
    payload = {"hook_event_name": "post_tool_call", "tool_name": "terminal",
               "tool_input": {"command": "npm publish"}, "session_id": "s", "cwd": "/tmp",
               "extra": {"status": "error", "error_message": message}}
    assert hooks.handler("hermes")(payload, bob) is None
    assert refusals(bob) == [("bob", "run command", "npm publish", "refused",
                              "denied by pattern 'npm publish*' (hermes's own deny list)")]


def test_up_says_deliver_type_does_nothing_for_a_shell(git_repo: Path, tmp_path: Path) -> None:
    with live_room(git_repo, tmp_path / "logs") as live:
        write(git_repo, yaml.safe_dump({"layout": "windows", "sessions": {
            "sh1": {"agent": "bash", "deliver": "type"}, "typed": {"agent": "cat",
                                                                 "deliver": "type"}}}))
        up = live.cli("up", "--detach", "--no-dashboard").stdout
        assert up.count("deliver: type does nothing for sh1 (bash)") == 1, up
        assert "typed" not in up.split("deliver: type does nothing for")[1].split("\n")[0]
        assert "bullpen note inbox" in up
