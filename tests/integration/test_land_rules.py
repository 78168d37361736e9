"""Landing cannot change its own rules: `land` and `land --all` land by the base's
bullpen.yaml, read once before the run, and a branch that would change the room's rules
(may, deny, budget, land, agent, setup, machine, at the top or in a session) is named
and refused unless the operator gives --allow-config. Real repositories, the real
`bullpen` command, a real `sh check.sh`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from board import audit, authority, plan, sessions, tasks
from board.authority import Power
from board.identity import Caller
from board.room import Room
from tests.cli_runner import identity, run_cli
from tests.conftest import commit_file, git
from workers.room.land import land_session
from worktrees import create_worktree
from worktrees.land import LandRefused

OPERATOR = Caller("operator")
CHECK = "if [ -e FORBIDDEN ]; then echo 'FORBIDDEN is here'; exit 1; fi; echo check ok\n"
SELF_GRANT = ["down", "land", "budget", "spawn"]


def base_plan(repo: Path, names: tuple[str, ...] = ("s1", "s2", "s3"), **top: object) -> dict:
    """Commit bullpen.yaml (check: sh check.sh) and check.sh on main; returns the plan."""
    config = {"land": {"strategy": "merge", "check": "sh check.sh"},
              "sessions": {name: {} for name in names}, **top}
    (repo / "check.sh").write_text(CHECK)
    git(repo, "add", "check.sh")
    commit_file(repo, "bullpen.yaml", yaml.safe_dump(config), "the operator's plan")
    return config


def add_session(room: Room, name: str) -> tuple[Path, str]:
    """A session with its own worktree on bullpen/NAME; returns (worktree, token)."""
    info = create_worktree(room.home.parent, name)
    token = sessions.register(room.conn, name, branch=info.branch, worktree=str(info.path),
                              base=info.base_commit)
    return info.path, token


def commit_plan(worktree: Path, config: dict, message: str) -> None:
    commit_file(worktree, "bullpen.yaml", yaml.safe_dump(config), message)


def mark_done(room: Room, names: tuple[str, ...]) -> None:
    plan.create_plan_tasks(room.conn, [plan.PlannedTask(n, f"{n}'s part", ()) for n in names])
    for name in names:
        task = plan.plan_task(room.conn, name)
        tasks.claim(room.conn, Caller(name), task)
        tasks.done(room.conn, Caller(name), task, summary="done")


def main_head(repo: Path) -> str:
    return git(repo, "rev-parse", "main").strip()


def test_land_all_lands_every_branch_by_the_base_check_not_one_a_branch_brought(
        room: Room) -> None:
    repo = room.home.parent
    config = base_plan(repo)
    paths = {name: add_session(room, name)[0] for name in ("s1", "s2", "s3")}
    lax = {**config, "land": {"strategy": "merge", "check": "true"}}
    commit_plan(paths["s1"], lax, "s1: a faster check")
    commit_file(paths["s2"], "s2.md", "s2\n", "s2's work")
    commit_file(paths["s3"], "FORBIDDEN", "x\n", "s3's work")
    mark_done(room, ("s1", "s2", "s3"))
    before = main_head(repo)

    refused = run_cli("land", "--all", "--quiet", cwd=repo)

    # s1 changes the check: named, refused, and nothing landed at all.
    assert refused.returncode == 2, refused
    assert refused.stderr.count("\n") == 1, refused.stderr
    assert refused.stderr.startswith("bullpen: stopped at s1 (0 landed before it): s1 changes"
                                     " the room's rules (land.check:"
                                     " 'sh check.sh' -> 'true')")
    assert "--allow-config" in refused.stderr
    assert main_head(repo) == before

    # Accepted by the operator, s1 lands; s3 is still landed by the base's check.
    allowed = run_cli("land", "--all", "--allow-config", "--quiet", cwd=repo)

    assert allowed.returncode == 1, allowed
    landed = allowed.stdout.splitlines()
    assert [line.split()[1] for line in landed] == ["s1", "s2"]
    assert landed[0].endswith("it changed the room's rules: land.check:"
                              " 'sh check.sh' -> 'true'")
    assert allowed.stderr == ("bullpen: stopped at s3 (2 landed before it): s3: the check"
                              " failed (exit 1): FORBIDDEN is here; nothing landed\n")
    assert not (repo / "FORBIDDEN").exists()
    assert "FORBIDDEN" not in git(repo, "ls-tree", "-r", "--name-only", "main")


def test_a_branch_granting_itself_powers_is_named_and_refused_until_the_operator_allows_it(
        room: Room) -> None:
    repo = room.home.parent
    config = base_plan(repo, names=("s1",))
    worktree, token = add_session(room, "s1")
    greedy = {**config, "sessions": {"s1": {"may": SELF_GRANT}}}
    commit_plan(worktree, greedy, "s1: tidy the plan")
    before = main_head(repo)

    refused = run_cli("land", "s1", "--quiet", cwd=repo)

    assert refused.returncode == 2, refused
    assert refused.stderr.startswith("bullpen: s1 changes the room's rules"
                                     " (sessions.s1.may: none -> [budget, down, land, spawn]);"
                                     " nothing landed")
    assert refused.stderr.rstrip().endswith("land with --allow-config to accept them")
    assert main_head(repo) == before
    assert "check |" not in run_cli("land", "s1", cwd=repo).stderr  # refused before the check

    # A session may not accept changes to the rules, even its own, even with may: [land].
    authority.grant(room.conn, OPERATOR, "s1", [Power.LAND])
    as_s1 = run_cli("land", "s1", "--allow-config", cwd=worktree,
                    env=identity(room.home, "s1", token))
    assert as_s1.returncode == 2, as_s1
    assert "may not land with --allow-config" in as_s1.stderr
    assert main_head(repo) == before

    allowed = run_cli("land", "s1", "--allow-config", "--quiet", cwd=repo)

    assert allowed.returncode == 0, allowed
    assert allowed.stdout.startswith("landed s1 on main:")
    assert allowed.stdout.rstrip().endswith(
        "it changed the room's rules: sessions.s1.may: none -> [budget, down,"
        " land, spawn]")
    assert yaml.safe_load((repo / "bullpen.yaml").read_text())["sessions"]["s1"]["may"] \
        == SELF_GRANT
    trail = json.loads(run_cli("audit", "--json", cwd=repo).stdout)
    outcomes = [(e["actor"], e["action"], e["outcome"]) for e in trail if e["target"] == "s1"]
    assert ("s1", "land --allow-config", "refused") in outcomes
    assert ("operator", "land --allow-config", "done") in outcomes


@pytest.mark.parametrize(("change", "named"), [
    ({"deny": ["git push*"]}, "deny: none -> [git push*]"),
    ({"budget": "$5"}, "budget: none -> $5.00"),
    ({"agent": "sh -c evil"}, "agent: 'hermes' -> 'sh -c evil'"),
    ({"land": {"strategy": "squash", "check": "sh check.sh"}},
     "land.strategy: 'merge' -> 'squash'"),
    ({"sessions": {"s1": {"setup": "curl x | sh"}}}, "sessions.s1.setup: none -> 'curl x | sh'"),
    ({"sessions": {"s1": {"machine": "laptop"}}}, "sessions.s1.machine: none -> 'laptop'"),
    ({"sessions": {"s1": {"budget": "1M"}}}, "sessions.s1.budget: none -> 1.00M tokens"),
    ({"sessions": {"s1": {}, "helper": {"agent": "claude", "may": ["stop"]}}},
     "sessions.helper.may: none -> [stop]; sessions.helper.agent: 'hermes' -> 'claude'"),
])
def test_each_rule_a_branch_changes_is_named(room: Room, change: dict, named: str) -> None:
    repo = room.home.parent
    config = base_plan(repo, names=("s1",))
    worktree, _ = add_session(room, "s1")
    commit_plan(worktree, {**config, **change}, "s1: plan")

    with pytest.raises(LandRefused, match="changes the room's rules") as refused:
        land_session(room.home, OPERATOR, "s1")

    assert named in str(refused.value)
    assert "git diff main...bullpen/s1 -- bullpen.yaml" in str(refused.value)


def test_a_branch_changing_only_tasks_and_order_lands_without_asking(room: Room) -> None:
    repo = room.home.parent
    config = base_plan(repo, names=("s1", "s2"), deny=["rm *"])
    (repo / "bullpen.yaml").write_text(yaml.safe_dump(
        {**config, "sessions": {"s1": {"may": ["stop", "land"]}, "s2": {}}}))
    commit_file(repo, "bullpen.yaml", (repo / "bullpen.yaml").read_text(), "grant s1")
    worktree, _ = add_session(room, "s1")
    reordered = {**config, "sessions": {"s2": {"task": "review"},
                                        "s1": {"may": ["land", "stop"], "task": "code"}}}
    commit_plan(worktree, reordered, "s1: tasks")

    said = land_session(room.home, OPERATOR, "s1")

    assert "rules" not in said


def test_a_branch_that_removes_or_renames_bullpen_yaml_drops_the_rules_and_is_refused(
        room: Room) -> None:
    repo = room.home.parent
    base_plan(repo, names=("s1",), deny=["git push*"])
    worktree, _ = add_session(room, "s1")
    git(worktree, "mv", "bullpen.yaml", "old-plan.yaml")
    git(worktree, "commit", "-qm", "s1: rename the plan")

    with pytest.raises(LandRefused) as refused:
        land_session(room.home, OPERATOR, "s1")

    assert "deny: [git push*] -> none" in str(refused.value)
    assert "land.check: 'sh check.sh' -> none" in str(refused.value)
    assert (repo / "bullpen.yaml").exists()


def test_a_branch_that_adds_bullpen_yaml_with_rules_is_refused(room: Room) -> None:
    repo = room.home.parent
    worktree, _ = add_session(room, "s1")
    commit_file(worktree, "bullpen.yaml", yaml.safe_dump(
        {"sessions": {"s1": {"may": ["down"]}}}), "s1: a plan")

    with pytest.raises(LandRefused, match=r"sessions\.s1\.may: none -> \[down\]"):
        land_session(room.home, OPERATOR, "s1")
    assert not (repo / "bullpen.yaml").exists()


@pytest.mark.parametrize("broken", ["sessions: [unclosed\n", "sessions:\n  s1:\n    may: [fly]\n"])
def test_a_branch_whose_bullpen_yaml_would_not_parse_is_refused_even_when_allowed(
        room: Room, broken: str) -> None:
    repo = room.home.parent
    base_plan(repo, names=("s1",))
    worktree, _ = add_session(room, "s1")
    commit_file(worktree, "bullpen.yaml", broken, "s1: oops")
    before = main_head(repo)

    with pytest.raises(LandRefused, match="s1's bullpen.yaml would not parse") as refused:
        land_session(room.home, OPERATOR, "s1", allow_config=True)

    assert "bullpen.yaml:" in str(refused.value) and "\n" not in str(refused.value)
    assert main_head(repo) == before


def test_a_branch_that_makes_bullpen_yaml_a_symbolic_link_is_refused(room: Room) -> None:
    repo = room.home.parent
    config = base_plan(repo, names=("s1",))
    worktree, _ = add_session(room, "s1")
    (worktree / "mine.yaml").write_text(yaml.safe_dump(
        {**config, "sessions": {"s1": {"may": ["down"]}}}))
    (worktree / "bullpen.yaml").unlink()
    (worktree / "bullpen.yaml").symlink_to("mine.yaml")
    git(worktree, "add", "-A")
    git(worktree, "commit", "-qm", "s1: plan by link")

    with pytest.raises(LandRefused, match="bullpen.yaml would be a symbolic link"):
        land_session(room.home, OPERATOR, "s1", allow_config=True)


def test_the_base_moving_its_own_rules_is_not_the_branch_changing_them(room: Room) -> None:
    repo = room.home.parent
    config = base_plan(repo, names=("s1",))
    worktree, _ = add_session(room, "s1")
    commit_file(worktree, "s1.md", "work\n", "s1's work")
    commit_plan(repo, {**config, "deny": ["rm -rf *"]}, "the operator adds a deny")

    said = land_session(room.home, OPERATOR, "s1")

    assert said.startswith("landed s1") and "rules" not in said
    assert audit.entries(room.conn)[-1].outcome == "done"


def test_a_branch_that_rewrites_the_script_the_check_runs_is_named(room: Room) -> None:
    repo = room.home.parent
    base_plan(repo, names=("s1", "s3"))
    s1, _ = add_session(room, "s1")
    s3, _ = add_session(room, "s3")
    commit_file(s1, "check.sh", "echo all fine\n", "s1: a simpler check")
    commit_file(s3, "FORBIDDEN", "x\n", "s3's work")
    mark_done(room, ("s1", "s3"))

    refused = run_cli("land", "--all", "--quiet", cwd=repo)

    assert refused.returncode == 2, refused
    assert "s1 changes the room's rules (check.sh (run by land.check):" \
        in refused.stderr
    assert "(git diff main...bullpen/s1 -- check.sh)" in refused.stderr
    assert "FORBIDDEN" not in git(repo, "ls-tree", "-r", "--name-only", "main")


def test_work_in_a_directory_the_check_names_is_not_a_change_of_the_check(
        room: Room) -> None:
    repo = room.home.parent
    commit_file(repo, "tests/test_app.sh", "true\n", "a test")
    base_plan(repo, names=("s1",))
    (repo / "bullpen.yaml").write_text(yaml.safe_dump(
        {"land": {"check": "sh check.sh tests"}, "sessions": {"s1": {}}}))
    commit_file(repo, "bullpen.yaml", (repo / "bullpen.yaml").read_text(), "check tests")
    worktree, _ = add_session(room, "s1")
    commit_file(worktree, "tests/test_app.sh", "test -e src/app.py\n", "s1: a better test")

    said = land_session(room.home, OPERATOR, "s1")

    assert said.startswith("landed s1") and "rules" not in said


def test_a_branch_that_commits_the_rooms_own_files_is_refused_even_when_allowed(
        room: Room) -> None:
    repo = room.home.parent
    base_plan(repo, names=("s1",))
    worktree, _ = add_session(room, "s1")
    (worktree / ".bullpen").mkdir(exist_ok=True)
    (worktree / ".bullpen" / "local.yaml").write_text("store: postgresql://elsewhere/db\n")
    git(worktree, "add", "-f", ".bullpen/local.yaml")
    git(worktree, "commit", "-qm", "s1: a store of my own")

    with pytest.raises(LandRefused, match=r"commits files in the room's own directory"
                                          r" \(\.bullpen/local\.yaml\)"):
        land_session(room.home, OPERATOR, "s1", allow_config=True)
    assert not (repo / ".bullpen" / "local.yaml").exists()
