"""`deny:` in a room: bullpen.yaml's bad values refused by line; a session whose agent
cannot enforce it is named once by `up` and by doctor; every launch keeps the room's
patterns (with the floor) for its hooks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.cli_runner import run_cli
from tests.rooms import live_room
from workers.agents import command_policy
from workers.room import config


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
        assert len(said) == 1 and said[0]["ok"] and "helper" in said[0]["what"]


def test_a_room_without_deny_says_nothing_of_it(git_repo: Path, tmp_path: Path) -> None:
    with live_room(git_repo, tmp_path / "logs") as live:
        write(git_repo, yaml.safe_dump({"layout": "windows", "sessions": {
            "helper": {"agent": live.agent("helper")}}}))
        assert "deny" not in live.cli("up", "--detach", "--no-dashboard").stdout
