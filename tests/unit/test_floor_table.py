"""bullpen's floor over the table of variants (tests/floor_variants.py): every spelling
of a forced or deleting push, of rm -r of / or home, refused with its rule named; the
ordinary commands beside them allowed."""

from __future__ import annotations

import pytest

from tests.floor_variants import ALLOWED, DENIED, MOVED_MAIN
from workers.agents.command_policy import FLOOR_PREFIX, check, patterns
from workers.agents.floor import judge


@pytest.mark.parametrize("command", DENIED)
def test_the_floor_refuses_every_spelling(command: str) -> None:
    denial = check(command, patterns())
    assert denial is not None, command
    assert denial.by_floor and denial.pattern.removeprefix(FLOOR_PREFIX) in judge.RULES


@pytest.mark.parametrize("command", ALLOWED)
def test_ordinary_commands_still_run(command: str) -> None:
    assert check(command, patterns()) is None, command


def test_the_issues_forms_are_named_as_forced_pushes() -> None:
    assert {check(command, ()).pattern for command in MOVED_MAIN} == {  # type: ignore[union-attr]
        "floor: a forced push"}


@pytest.mark.parametrize(("command", "rule"), [
    ("git push origin :main", "a push that deletes a remote branch"),
    ("git push --no-verify origin main", "a push that skips the hooks (--no-verify)"),
    ("git -c core.hooksPath=/x push", "a change of git's hooks path (core.hooksPath)"),
    ("rm -rf ~/*", "rm -r of a home directory"),
    ("rm -fr /*", "rm -r of /"),
    ("rm -rf --no-preserve-root /", "rm --no-preserve-root"),
    ("git push -f 'unclosed", judge.UNREADABLE),
])
def test_each_refusal_says_what_it_refused(command: str, rule: str) -> None:
    denial = check(command, ())
    assert denial is not None and denial.pattern == FLOOR_PREFIX + rule
    assert rule in denial.reason()


@pytest.mark.parametrize(("command", "pattern"), [
    ("sudo npm publish", "npm publish"),  # each simple command, wrappers seen through
    ("if true; then npm publish; fi", "npm publish"),
    ("bash -o pipefail -c 'npm publish'", "npm publish"),
    ("echo 'npm publish' | bash", "npm publish"),
    (">/dev/null npm publish", "npm publish"),
    ("docker run --rm --privileged img", "docker run *--privileged*"),
])
def test_room_patterns_match_each_parsed_simple_command(command: str, pattern: str) -> None:
    room = patterns(["npm publish", "docker run *--privileged*"])
    denial = check(command, room)
    assert denial is not None and denial.pattern == pattern
    assert check("echo 'npm publish'", room) is None
