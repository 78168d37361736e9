"""The room's command policy: what a deny pattern matches, and what it does not."""

from __future__ import annotations

import pytest

from workers.agents import command_policy
from workers.agents.command_policy import FLOOR, check, patterns

ROOM = patterns(["git push --force*", "rm -rf /*", "npm publish"])


@pytest.mark.parametrize("command", [
    "git push --force origin main",
    "git push --force",
    "git  push   --force origin main",  # runs of whitespace are one space
    "GIT PUSH --FORCE origin main",  # case-insensitive, as Hermes matches its own list
    "git push origin main --force",  # the floor: --force anywhere after push
    "git push --force-with-lease origin main",
    "git push -f origin main",
    "git push origin -f",
    "cd sub && git push --force origin main",  # any simple command of a chain
    "make test; git push --force",
    "true || git push --force",
    "echo ok | git push --force",
    "sleep 1 & git push --force",
    "(cd sub\ngit push --force)",
    "echo $(git push --force)",
    "echo `git push --force`",
    'git push "--force" origin main',  # quotes removed
    "bash -c 'git push --force origin main'",  # a shell running a script text
    "sh -lc \"cd x && git push --force\"",
    "/bin/bash -ec 'bash -c \"git push --force\"'",
    "sudo git push --force",
    "env GIT_TRACE=1 git push --force",
    "GIT_TRACE=1 git push --force",
    "rm -rf /",
    "rm -Rf /",
    "rm -rf ~",
    "rm -rf /tmp/build",  # the room's `rm -rf /*` denies any absolute path
    "npm publish",
])
def test_a_denied_command_is_refused(command: str) -> None:
    assert check(command, ROOM) is not None, command


@pytest.mark.parametrize("command", [
    "git push origin main",
    "git push origin feature-fix",  # -f only as a word of its own
    "git status --force",
    "echo 'git push --force'",  # quoted text is an argument, not a command
    "git commit -m 'never git push --force'",
    "rm -rf build",
    "rm -rf ./tmp",
    "npm publish --dry-run",  # a pattern without * matches the whole simple command
    "bash script.sh -c 'git push --force'",  # a script file's arguments
])
def test_an_allowed_command_runs(command: str) -> None:
    assert check(command, ROOM) is None, command


def test_the_floor_holds_without_a_deny_list() -> None:
    assert check("git push --force origin main", patterns()) is not None
    assert check("rm -rf /tmp/build", patterns()) is None  # only the room's rm -rf /*
    assert patterns()[:len(FLOOR)] == FLOOR


def test_the_denial_names_its_rule_or_pattern_and_cuts_the_command() -> None:
    denial = check("git push --force origin main && echo " + "x" * 500, ROOM)
    assert denial is not None and denial.pattern == "floor: a forced push"
    assert len(denial.shown) == command_policy.COMMAND_CHARS
    assert "bullpen's floor refuses this command: it is a forced push" in denial.reason()
    denial = check("cd x && npm publish", ROOM)
    assert denial is not None and denial.pattern == "npm publish"
    assert "the deny pattern 'npm publish'" in denial.reason()


def test_patterns_keep_order_and_come_once() -> None:
    assert patterns(["a  b", "a b", "c"]) == (*FLOOR, "a b", "c")


def test_a_session_keeps_the_patterns_it_was_launched_with(tmp_path) -> None:
    assert command_policy.stored(tmp_path, "s") == FLOOR  # never launched: the floor
    command_policy.store(tmp_path, "s", patterns(["npm publish"]))
    assert command_policy.stored(tmp_path, "s") == (*FLOOR, "npm publish")
