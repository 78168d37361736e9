"""Where each session's code stands: ahead of / behind the base branch, predicted
conflicts, landed or ready to land — for `ls`, `ls --json` and the dashboard.

One `for-each-ref` and one `rev-list` per session; the conflicts and landings come from
the board (the radar and `land` keep them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from board import conflicts, landings, plan, tasks
from board.conflicts import Conflict
from board.connection import Connection
from board.vocabulary import FINISHED_TASK_STATUSES
from worktrees.errors import WorktreeError
from worktrees.gitcmd import run_git, run_git_all
from worktrees.naming import branch_for


@dataclass(frozen=True)
class CodeFlow:
    """One session's code: `ahead`/`behind` the base, open `conflicts`, `landed` sha."""

    ahead: int | None = None
    behind: int | None = None
    conflicts: tuple[Conflict, ...] = field(default=())
    landed: str | None = None  # the base commit its current head landed as
    ready: bool = False  # its tasks are done and it holds commits the base lacks
    session: str = ""

    @property
    def summary(self) -> str:
        """`landed abc1234`, `ready to land`, `conflicts with coder (src/app.py)` or ''."""
        if self.conflicts:
            first = self.conflicts[0]
            more = f" +{len(self.conflicts) - 1}" if len(self.conflicts) > 1 else ""
            return (f"conflicts with {first.other(self.session)}"
                    f" ({', '.join(first.paths[:2])}){more}")
        if self.landed:
            return f"landed {self.landed[:7]}"
        if self.ready:
            return "ready to land"
        return ""

    def to_json(self) -> dict:
        return {"ahead": self.ahead, "behind": self.behind,
                "conflicts": [{"with": c.other(self.session), "paths": list(c.paths),
                               "since": c.to_json()["since"]} for c in self.conflicts],
                "landed": self.landed, "code": self.summary or None}


def code_flows(conn: Connection, root: Path, known: list,  # noqa: ANN001 - models.Session
               heads: dict[str, str] | None = None) -> dict[str, CodeFlow]:
    """Each session's CodeFlow (sessions without a branch here get counts of None); none
    when `root` is no git repository (a room kept elsewhere, BULLPEN_HOME), so `ls`
    still lists the sessions. `heads`: branch_heads(root), when the caller has them."""
    try:
        heads = branch_heads(root) if heads is None else heads
    except WorktreeError:
        return {}
    base_name = run_git(root, "symbolic-ref", "--quiet", "--short", "HEAD",
                        ok=(0, 1)).stdout.strip()
    base = heads.get(base_name)
    open_ = conflicts.open_conflicts(conn)
    last = landings.latest(conn)
    plan_ids = plan.plan_tasks(conn)
    every = tasks.list_tasks(conn)
    flows = {}
    head_of = {s.name: heads.get(s.branch or branch_for(s.name)) for s in known}
    counted = [name for name, head in head_of.items() if head and base]
    counts = dict(zip(counted, run_git_all(  # one rev-list a session, run together
        [(root, ("rev-list", "--left-right", "--count", f"{base}...{head_of[name]}"))
         for name in counted]), strict=True))
    for session in known:
        name = session.name
        head = head_of[name]
        ahead = behind = None
        if name in counts:
            behind, ahead = (int(n) for n in counts[name].stdout.split())
        landing = last.get(name)
        # Landed while its head is the one that landed, and also once nothing of its own
        # is left to land: its branch deleted (down --remove-worktrees, rm) or made again
        # from the base since.
        landed = landing.new_base if landing and (head in (landing.head, None) or
                                                  ahead == 0) else None
        mine = [t for t in every
                if (t.id == plan_ids[name] if name in plan_ids else t.assignee == name)]
        done = bool(mine) and all(t.status in FINISHED_TASK_STATUSES for t in mine)
        flows[name] = CodeFlow(ahead, behind, tuple(c for c in open_ if name in (c.a, c.b)
                                                    and not (c.with_base and c.b == name)),
                               landed, done and bool(ahead) and landed is None, name)
    return flows


def branch_heads(root: Path) -> dict[str, str]:
    """Every local branch's head commit, in one git call."""
    output = run_git(root, "for-each-ref", "--format=%(refname:short) %(objectname)",
                     "refs/heads/").stdout
    return dict(line.split(" ", 1) for line in output.splitlines() if " " in line)
