"""`bullpen rm`: a session leaves the room for good.

Its agent is stopped, its worktree removed (refused while it holds work, unless
`force`), its branch kept unless `delete_branch`, and the store forgets it
(board.sessions.forget). A session still in bullpen.yaml would be started again by the
next `up`: the report says so.
"""

from __future__ import annotations

from pathlib import Path

from board import plan as board_plan
from board import sessions
from board.errors import BadInput
from board.home import repo_root_of_home
from board.room import open_operator_room
from workers.room import config, spawn
from workers.tmux.server import RoomServer
from worktrees.changes import branch_head
from worktrees.errors import BadWorktreeInput, UnsafeRemoval
from worktrees.naming import branch_for
from worktrees.remove import check_removable, remove_worktree


def remove_session(home: Path, name: str, *, delete_branch: bool = False,
                   force: bool = False, server: RoomServer | None = None) -> list[str]:
    """Stop, remove the worktree of and forget session `name`; one line per act. Every
    refusal (work that would be lost) comes before anything is stopped."""
    root = repo_root_of_home(home)
    with open_operator_room(home) as room:
        session = sessions.require(room.conn, name)
    has_git = session.worktree is not None or branch_head(root, branch_for(name)) is not None
    if has_git and not force:
        try:
            check_removable(root, name, delete_branch=delete_branch)
        except UnsafeRemoval:
            raise
        except BadWorktreeInput:  # neither worktree nor branch left: nothing to lose
            has_git = False
    done = [line for line in spawn.stop(home, name, server=server)
            if line != f"{name} was not running"]
    if has_git:
        try:
            removed = remove_worktree(root, name, force=force, delete_branch=delete_branch)
        except UnsafeRemoval:
            raise  # work appeared since the check: git refused, the session is stopped
        except BadWorktreeInput:
            pass  # already gone (down --remove-worktrees, or by hand)
        else:
            kept = branch_head(root, removed.branch) is not None
            done.append(f"removed worktree {removed.path}"
                        + (f" and branch {removed.branch}" if removed.branch_deleted else
                           f" (branch {removed.branch} kept)" if kept else ""))
    with open_operator_room(home) as room:
        unassigned = sessions.forget(room.conn, name)
        board_plan.forget_planned(room.conn, name)
    done.append(f"forgot {name}" + (f" ({unassigned} unfinished task(s) unassigned)"
                                    if unassigned else ""))
    if _planned(root, name):
        done.append(f"{name} is still in bullpen.yaml: the next bullpen up starts it again"
                    f" unless you delete sessions.{name} there")
    return done


def _planned(root: Path, name: str) -> bool:
    try:
        return any(item.name == name for item in config.load(root).sessions)
    except BadInput:  # a broken plan: up will say what is wrong with it
        return False
