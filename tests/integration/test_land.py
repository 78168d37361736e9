"""Landing: the result is built and checked aside; the base moves only when both succeed,
and a refusal leaves the base branch, every worktree and every index as they were."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import yaml

from board import audit, authority, landings, plan, sessions, tasks
from board.authority import Power
from board.errors import Refused
from board.identity import Caller
from board.room import Room
from tests.cli_runner import run_cli
from tests.conftest import commit_file, git
from workers.room.land import land_all, land_session, landing_queue
from worktrees import create_worktree
from worktrees.land import LandRefused, land

OPERATOR = Caller("operator")


def write_plan(repo: Path, check: str | None = None, strategy: str = "merge",
               sessions_: dict | None = None) -> None:
    land: dict = {"strategy": strategy}
    if check:
        land["check"] = check
    config = {"land": land, "sessions": sessions_ or {"coder": {}}}
    (repo / "bullpen.yaml").write_text(yaml.safe_dump(config))


def add_session(room: Room, name: str) -> Path:
    info = create_worktree(room.home.parent, name)
    sessions.register(room.conn, name, branch=info.branch, worktree=str(info.path),
                      base=info.base_commit)
    return info.path


def tree_state(repo: Path, *worktrees: Path) -> dict:
    """Everything a landing must not change when it refuses: refs, HEADs, indexes, files."""
    state = {"refs": git(repo, "for-each-ref", "--format=%(refname) %(objectname)"),
             "worktrees": git(repo, "worktree", "list", "--porcelain")}
    for place in (repo, *worktrees):
        files = sorted(p for p in place.rglob("*") if p.is_file() and ".git" not in p.parts
                       and ".bullpen" not in p.relative_to(place).parts)
        state[str(place)] = {
            "head": git(place, "rev-parse", "HEAD"),
            "index": git(place, "ls-files", "--stage"),
            "status": git(place, "status", "--porcelain", "--untracked-files=all"),
            "files": {str(p.relative_to(place)): hashlib.sha1(p.read_bytes()).hexdigest()
                      for p in files}}
    return state


@pytest.fixture
def coder(room: Room) -> Path:
    path = add_session(room, "coder")
    commit_file(path, "src/app.py", "def handler():\n    return 'v2'\n", "v2")
    return path


def test_a_passing_check_moves_the_base_and_the_main_checkout_follows(
        room: Room, coder: Path) -> None:
    repo = room.home.parent
    write_plan(repo, check="grep -q v2 src/app.py && echo checked ok")
    (repo / "notes.txt").write_text("the operator's own uncommitted file\n")
    lines: list[str] = []

    said = land_session(room.home, OPERATOR, "coder", on_output=lines.append)

    assert said.startswith("landed coder on main:") and "check passed" in said
    assert lines == ["checked ok"]  # the check's output, line by line
    assert (repo / "src/app.py").read_text() == "def handler():\n    return 'v2'\n"
    assert git(repo, "status", "--porcelain") == "?? bullpen.yaml\n?? notes.txt\n"
    assert git(repo, "log", "-1", "--format=%s") == "Land coder (bullpen/coder)\n"
    head = git(coder, "rev-parse", "HEAD").strip()
    assert git(repo, "merge-base", "--is-ancestor", head, "main") == ""
    assert landings.latest(room.conn)["coder"].head == head
    assert ("operator", "land", "coder", "done") in [
        (e.actor, e.action, e.target, e.outcome) for e in audit.entries(room.conn)]
    assert git(repo, "worktree", "list").count("\n") == 2  # the scratch worktree is gone


def test_a_failing_check_changes_nothing_anywhere(room: Room, coder: Path) -> None:
    repo = room.home.parent
    other = add_session(room, "other")
    (other / "wip.txt").write_text("uncommitted\n")
    git(other, "add", "wip.txt")
    (coder / "scratch.txt").write_text("not committed\n")
    write_plan(repo, check="echo running tests; echo '1 failed'; exit 3")
    before = tree_state(repo, coder, other)

    with pytest.raises(LandRefused) as refused:
        land_session(room.home, OPERATOR, "coder")

    message = str(refused.value)
    assert "\n" not in message and "check failed (exit 3): 1 failed" in message
    assert tree_state(repo, coder, other) == before
    assert landings.latest(room.conn) == {}
    entry = audit.entries(room.conn)[-1]
    assert (entry.action, entry.outcome) == ("land", "failed") and "1 failed" in entry.detail


def test_a_conflict_with_the_base_refuses_and_changes_nothing(room: Room, coder: Path) -> None:
    repo = room.home.parent
    commit_file(repo, "src/app.py", "def handler():\n    return 'v3'\n", "v3 on main")
    write_plan(repo, check="true")
    before = tree_state(repo, coder)

    with pytest.raises(LandRefused, match="coder conflicts with main in src/app.py") as refused:
        land_session(room.home, OPERATOR, "coder")

    assert tree_state(repo, coder) == before
    # The advice is a command that merges main into coder's branch (bullpen sync merges
    # the other way: a session's work into the caller's checkout).
    assert f"(git -C {coder} merge main), then land again" in str(refused.value)
    assert "bullpen sync" not in str(refused.value)
    with pytest.raises(LandRefused, match="git merge main where bullpen/coder is checked out"):
        land(repo, "bullpen/coder", label="coder")  # no worktree known: where it is
    assert tree_state(repo, coder) == before


def test_uncommitted_changes_in_the_main_checkout_to_a_touched_file_refuse(
        room: Room, coder: Path) -> None:
    repo = room.home.parent
    (repo / "src/app.py").write_text("the operator's edit\n")
    write_plan(repo, check="touch ran-the-check")
    before = tree_state(repo, coder)

    with pytest.raises(LandRefused, match="uncommitted changes to src/app.py"):
        land_session(room.home, OPERATOR, "coder")

    assert tree_state(repo, coder) == before
    assert (repo / "src/app.py").read_text() == "the operator's edit\n"


@pytest.mark.parametrize("strategy", ["squash", "rebase"])
def test_squash_and_rebase_land_a_linear_history(room: Room, coder: Path,
                                                 strategy: str) -> None:
    repo = room.home.parent
    commit_file(coder, "docs.md", "docs\n", "docs")
    commit_file(repo, "README.md", "# moved on\n", "main moved")
    write_plan(repo, strategy=strategy)

    land_session(room.home, OPERATOR, "coder")

    assert git(repo, "log", "-1", "--format=%P", "main").count(" ") == 0  # no merge commit
    expected = 1 if strategy == "squash" else 2
    assert int(git(repo, "rev-list", "--count", "HEAD~1..HEAD")) == 1
    assert len(git(repo, "log", "--format=%s", "HEAD", "^HEAD~" + str(expected))
               .splitlines()) == expected
    assert (repo / "docs.md").exists() and (repo / "README.md").read_text() == "# moved on\n"
    assert git(repo, "status", "--porcelain", "--untracked-files=no") == ""


def test_a_session_without_may_land_is_refused_and_audited(room: Room, coder: Path) -> None:
    repo = room.home.parent
    write_plan(repo)
    add_session(room, "lead")
    base = git(repo, "rev-parse", "main")

    with pytest.raises(Refused, match="may not land coder"):
        land_session(room.home, Caller("lead"), "coder")
    assert git(repo, "rev-parse", "main") == base

    authority.grant(room.conn, OPERATOR, "lead", [Power.LAND])
    land_session(room.home, Caller("lead"), "coder")
    outcomes = [(e.actor, e.action, e.target, e.outcome) for e in audit.entries(room.conn)
                if e.action == "land"]
    # The attempt is audited when it starts (before the check), then with its outcome.
    assert outcomes == [("lead", "land", "coder", "refused"), ("lead", "land", "coder", "started"),
                        ("lead", "land", "coder", "done")]


def _plan_done(room: Room, names: list[str], after: dict[str, tuple[str, ...]]) -> None:
    plan.create_plan_tasks(room.conn, [plan.PlannedTask(n, f"{n}'s part", after.get(n, ()))
                                       for n in names])
    for name in names:
        task = plan.plan_task(room.conn, name)
        tasks.claim(room.conn, Caller(name), task)
        tasks.done(room.conn, Caller(name), task, summary="done")


def test_land_all_lands_done_sessions_parents_first_and_stops_at_a_refusal(
        room: Room) -> None:
    repo = room.home.parent
    write_plan(repo, sessions_={"reviewer": {"after": ["coder"]}, "coder": {"after": ["research"]},
                                "research": {}, "idle": {}})
    paths = {name: add_session(room, name) for name in ("reviewer", "coder", "research", "idle")}
    for name in ("reviewer", "coder", "research"):
        commit_file(paths[name], f"{name}.md", f"{name}\n", f"{name}'s work")
    _plan_done(room, ["research", "coder", "reviewer"],
               {"coder": ("research",), "reviewer": ("coder",)})
    assert landing_queue(room.home) == ["research", "coder", "reviewer"]  # idle is not done

    said: list[str] = []
    assert land_all(room.home, OPERATOR, say=said.append) == 3
    assert [line.split()[1] for line in said] == ["research", "coder", "reviewer"]
    assert landing_queue(room.home) == []

    commit_file(paths["coder"], "coder.md", "clash\n", "more")
    commit_file(repo, "coder.md", "other\n", "main too")
    commit_file(paths["reviewer"], "later.md", "x\n", "later")
    with pytest.raises(LandRefused, match=r"stopped at coder \(0 landed before it\)"):
        land_all(room.home, OPERATOR, say=said.append)
    assert not (repo / "later.md").exists()  # the queue stopped before the reviewer


def test_the_cli_says_one_line_and_exits_1_when_the_check_fails(room: Room,
                                                                coder: Path) -> None:
    repo = room.home.parent
    write_plan(repo, check="echo boom; false")
    base = git(repo, "rev-parse", "main")

    result = run_cli("land", "coder", cwd=repo)

    assert result.returncode == 1, result
    errors = [line for line in result.stderr.splitlines() if not line.startswith("  check |")]
    assert errors == ["bullpen: coder: the check failed (exit 1): boom; nothing landed"]
    assert "  check | boom" in result.stderr
    assert git(repo, "rev-parse", "main") == base
    assert run_cli("land", cwd=repo).returncode == 2


def test_land_all_with_nothing_ready_says_why_in_one_line_and_succeeds(room: Room) -> None:
    repo = room.home.parent
    write_plan(repo, sessions_={"coder": {}, "idle": {}})
    coder = add_session(room, "coder")
    add_session(room, "idle")
    plan.create_plan_tasks(room.conn, [plan.PlannedTask(n, f"{n}'s part", ())
                                       for n in ("coder", "idle")])

    quiet = run_cli("land", "--all", cwd=repo)
    assert (quiet.returncode, quiet.stderr) == (0, ""), quiet
    assert quiet.stdout == ("nothing is ready to land: no session has commits the base"
                            " lacks (see bullpen ls)\n")

    commit_file(coder, "src/app.py", "v2\n", "v2")
    waiting = run_cli("land", "--all", cwd=repo)
    assert (waiting.returncode, waiting.stderr) == (0, ""), waiting
    assert waiting.stdout == ("nothing is ready to land: coder has commits the base lacks"
                              " but its tasks are not done (see bullpen task ls, or land it"
                              " by name: bullpen land coder)\n")
