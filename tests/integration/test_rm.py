"""`bullpen rm NAME`: a session leaves the room for good, with its work kept safe."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from board import notes, sessions, tasks
from board.identity import Caller
from board.models import OPERATOR
from tests.cli_runner import identity
from tests.conftest import git
from tests.rooms import LiveRoom, live_room
from worktrees.naming import branch_for

pytestmark = pytest.mark.slow


@pytest.fixture
def room(git_repo: Path, tmp_path: Path):
    with live_room(git_repo, tmp_path / "logs") as live:
        live.cli("spawn", "py", "--agent", "cat", "--no-dashboard")
        yield live


def branches(room: LiveRoom) -> list[str]:
    return git(room.repo, "branch", "--format=%(refname:short)").split()


def audit(room: LiveRoom) -> list[tuple[str, str | None, str]]:
    entries = json.loads(room.cli("audit", "--json").stdout)
    return [(e["action"], e["target"], e["outcome"]) for e in entries
            if e["action"].startswith("remove")]


def test_rm_refuses_uncommitted_work_and_changes_nothing(room: LiveRoom) -> None:
    worktree = Path(room.sessions()["py"]["worktree"])
    (worktree / "draft.py").write_text("work in progress\n")
    refused = room.cli("rm", "py", check=False)
    assert refused.returncode == 2, refused.stderr
    assert "draft.py" in refused.stderr and "--force" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert (worktree / "draft.py").exists()
    assert room.sessions()["py"]["pane"] is not None  # still running
    assert [outcome for _, _, outcome in audit(room)] == ["failed"]


def test_rm_force_stops_forgets_and_keeps_the_branch(room: LiveRoom) -> None:
    worktree = Path(room.sessions()["py"]["worktree"])
    (worktree / "draft.py").write_text("work in progress\n")
    with room.db() as conn:
        task = tasks.add(conn, Caller(OPERATOR), "port it", assignee="py")
        note = notes.send(conn, OPERATOR, "py", "waiting for you")
    done = room.cli("rm", "py", "--force").stdout
    assert "forgot py (1 unfinished task(s) unassigned)" in done
    assert f"(branch {branch_for('py')} kept)" in done
    assert "py" not in room.sessions()
    assert not worktree.exists()
    assert branch_for("py") in branches(room)
    with room.db() as conn:
        assert tasks.get(conn, task.id).assignee is None  # on the board for another
        state = conn.execute("SELECT state FROM deliveries WHERE note = ?",
                             (note.id,)).fetchone()[0]
    assert state == "dropped"
    assert ("remove --force", "py", "done") in audit(room)
    again = room.cli("rm", "py", check=False)
    assert again.returncode == 2 and "unknown session 'py'" in again.stderr


def test_rm_delete_branch_deletes_a_merged_branch_and_refuses_an_unmerged_one(
        room: LiveRoom) -> None:
    room.cli("spawn", "js", "--agent", "cat", "--no-dashboard")
    worktree = Path(room.sessions()["js"]["worktree"])
    (worktree / "new.js").write_text("export {}\n")
    git(worktree, "add", "new.js")
    git(worktree, "commit", "-q", "-m", "js work")
    refused = room.cli("rm", "js", "--delete-branch", check=False)
    assert refused.returncode == 2 and "1 commit(s) not in" in refused.stderr
    assert "js" in room.sessions() and branch_for("js") in branches(room)
    kept = room.cli("rm", "js").stdout  # the branch keeps the commit: nothing is lost
    assert f"(branch {branch_for('js')} kept)" in kept and "js" not in room.sessions()

    done = room.cli("rm", "py", "--delete-branch").stdout
    assert f"and branch {branch_for('py')}" in done
    assert branch_for("py") not in branches(room)
    assert branch_for("js") in branches(room)


def test_rm_of_a_registered_session_forgets_it(room: LiveRoom) -> None:
    room.cli("register", "outside")
    assert "outside" in room.sessions()
    assert room.cli("rm", "outside").stdout.strip() == "forgot outside"
    assert "outside" not in room.sessions()


def test_rm_says_a_planned_session_comes_back_with_up(room: LiveRoom) -> None:
    (room.repo / "bullpen.yaml").write_text("agent: cat\nsessions:\n  py: {}\n")
    done = room.cli("rm", "py").stdout
    assert "py is still in bullpen.yaml" in done and "sessions.py" in done


def test_a_session_cannot_remove_itself_nor_another_without_a_grant(room: LiveRoom) -> None:
    room.cli("spawn", "js", "--agent", "cat", "--no-dashboard")
    with room.db() as conn:
        as_py = identity(room.home, "py", sessions.new_launch_token(conn, "py"))
    itself = room.cli("rm", "py", env=as_py, check=False)
    assert itself.returncode == 2 and "cannot remove itself" in itself.stderr
    other = room.cli("rm", "js", env=as_py, check=False)
    assert other.returncode != 0 and "js" in room.sessions() and "py" in room.sessions()
    assert ("remove", "js", "refused") in audit(room)
