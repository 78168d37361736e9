"""Sessions that left: deleted from bullpen.yaml, their worktree removed, or landed and
cleaned up. `up` does not bring back what the plan dropped, `ls` does not show what is
gone as if it were there, and a landing stays on record."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.rooms import LiveRoom, live_room
from tests.waiting import wait_until

pytestmark = pytest.mark.slow
PLAN = "agent: cat\nland: {check: 'true'}\nsessions:\n  sh1: {}\n  py: {}\n"


@pytest.fixture
def room(git_repo: Path, tmp_path: Path):
    (git_repo / "bullpen.yaml").write_text(PLAN)
    with live_room(git_repo, tmp_path / "logs") as live:
        live.cli("up", "--detach", "--no-dashboard")
        yield live


def test_up_leaves_alone_a_session_deleted_from_bullpen_yaml(room: LiveRoom) -> None:
    room.cli("spawn", "extra", "--agent", "cat", "--no-dashboard")  # never in the plan
    room.cli("down")
    (room.repo / "bullpen.yaml").write_text("agent: cat\nsessions:\n  sh1: {}\n")
    said = room.cli("up", "--detach", "--no-dashboard").stdout
    assert "left py alone: no longer in bullpen.yaml" in said
    assert "bullpen rm NAME" in said and "restarted py" not in said
    rows = room.sessions()
    assert rows["py"]["pane"] is None and rows["py"]["status"] == "stopped"
    assert rows["sh1"]["pane"] and rows["extra"]["pane"]  # the plan's, and a spawned one
    again = room.cli("up", "--detach", "--no-dashboard").stdout
    assert "left py alone" in again and room.sessions()["py"]["pane"] is None
    room.cli("restart", "py")  # asked for by name: it runs
    assert room.sessions()["py"]["pane"]
    room.cli("rm", "py")
    room.cli("spawn", "py", "--agent", "cat", "--no-dashboard")  # by hand, under that name
    room.cli("down")
    assert "restarted py" in room.cli("up", "--detach", "--no-dashboard").stdout


def test_a_session_whose_worktree_was_removed_is_listed_as_removed(room: LiveRoom) -> None:
    room.cli("stop", "py", "--remove-worktree")
    row = room.sessions()["py"]
    assert (row["worktree"], row["branch"]) == (None, None)
    listing = room.cli("ls").stdout.splitlines()
    header = listing[0].split()
    assert "worktree" in header
    py = next(line.split() for line in listing if line.startswith("py "))
    sh1 = next(line.split() for line in listing if line.startswith("sh1 "))
    assert py[header.index("worktree")] == "removed"
    assert py[header.index("branch")] == "-"  # bullpen/py no longer exists
    assert sh1[header.index("worktree")] == ".bullpen/worktrees/sh1"


def test_landed_marks_survive_down_remove_worktrees_and_the_next_up(room: LiveRoom) -> None:
    worktree = Path(room.sessions()["py"]["worktree"])
    (worktree / "port.py").write_text("print('ported')\n")
    git(worktree, "add", "port.py")
    git(worktree, "commit", "-q", "-m", "port it")
    room.cli("land", "py", "--quiet")
    landed = room.sessions()["py"]["landed"]
    assert landed == git(room.repo, "rev-parse", "HEAD").strip()
    said = room.cli("down", "--remove-worktrees").stdout
    assert f"removed {worktree}" in said
    assert room.sessions()["py"]["landed"] == landed
    room.cli("up", "--detach", "--no-dashboard")  # py's branch is made again, from the base
    wait_until(lambda: room.sessions()["py"]["pane"], message="py running again")
    row = room.sessions()["py"]
    assert (row["landed"], row["code"]) == (landed, f"landed {landed[:7]}")
