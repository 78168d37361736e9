"""`bullpen land`: a session's branch onto the base branch, one at a time or as a queue.

The git work (temporary worktree, check, compare-and-swap of the base) is
`worktrees.land`; here are the room's rules around it: landing is a privileged power
(`may: [land]`), each attempt is audited with its outcome, each landing recorded in the
board (so `ls` can say "landed abc1234"), and `--all` lands the sessions whose work is
done in plan order, parents first, stopping at the first refusal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from board import authority, landings, plan, sessions, tasks
from board.authority import Power
from board.errors import BadInput
from board.identity import Caller
from board.vocabulary import FINISHED_TASK_STATUSES
from workers.room import config as config_file
from workers.room.code_view import CodeFlow, code_flows
from workers.room.spawn import open_operator_room
from worktrees.land import LandRefused, Strategy, base_branch, land
from worktrees.naming import branch_for
from worktrees.repo import resolve_commit

Output = Callable[[str], None]


@dataclass(frozen=True)
class LandingPreview:
    """What landing a session would do, for a question before it (the dashboard's)."""

    session: str
    base_branch: str
    strategy: str
    check: str | None  # land.check from bullpen.yaml, run in the built result first
    code: CodeFlow  # ahead of the base, conflicts, landed or ready to land


def landing_preview(home: Path, name: str) -> LandingPreview:
    """Where `name` would land, how, after which check, and where its code stands now;
    raises LandRefused when there is no branch to land on (a detached main checkout)."""
    settings = config_file.load(home.parent).land
    into = base_branch(home.parent)
    with open_operator_room(home) as room:
        session = sessions.require(room.conn, name)
        flow = code_flows(room.conn, home.parent, [session]).get(name, CodeFlow(session=name))
    return LandingPreview(name, into, settings.strategy, settings.check, flow)


def land_session(home: Path, caller: Caller, name: str,
                 on_output: Output = lambda line: None) -> str:
    """Land `name`'s branch; returns the line saying what landed. Raises Refused (not
    allowed) or LandRefused (conflict, failing check…), both audited, nothing changed."""
    settings = config_file.load(home.parent).land
    with open_operator_room(home) as room:
        session = sessions.require(room.conn, name)
        branch = session.branch or branch_for(name)
        with authority.privileged(room.conn, caller, Power.LAND, name):
            landing = land(home.parent, branch, strategy=Strategy(settings.strategy),
                           check=settings.check, label=name,
                           worktree=session.worktree or None, on_output=on_output)
        landings.record(room.conn, name, base_branch=landing.base_branch,
                        old_base=landing.old, new_base=landing.new, head=landing.head,
                        strategy=landing.strategy, landed_by=caller.name)
    checked = " after the check passed" if settings.check else ""
    return (f"landed {name} on {landing.base_branch}: {landing.old[:7]} -> {landing.new[:7]}"
            f" ({landing.commits} commit{'s' if landing.commits != 1 else ''},"
            f" {landing.strategy}{checked})")


def land_all(home: Path, caller: Caller, on_output: Output = lambda line: None,
             say: Output = print) -> int:
    """Land every done session with work to land, in plan order; stop at the first
    refusal (re-raised, naming the session). Returns how many landed."""
    order, waiting = _queue_and_waiting(home)
    if not order:
        # Nothing to land is an answer, not bad input: say why and succeed.
        say(f"nothing is ready to land: {_why_nothing(waiting)}")
        return 0
    landed = 0
    for name in order:
        if not has_news(home, name):
            continue  # a parent's landing brought it in already (its branch built on it)
        try:
            say(land_session(home, caller, name, on_output))
        except LandRefused as refused:
            raise LandRefused(f"stopped at {name} ({landed} landed before it): {refused}") \
                from None
        landed += 1
    return landed


def landing_queue(home: Path) -> list[str]:
    """Sessions to land, parents first: every task of theirs finished, and their branch
    holds commits the base lacks (a landed session that committed since counts again)."""
    return _queue_and_waiting(home)[0]


def _why_nothing(waiting: list[str]) -> str:
    if not waiting:
        return "no session has commits the base lacks (see bullpen ls)"
    if len(waiting) == 1:
        return (f"{waiting[0]} has commits the base lacks but its tasks are not done (see"
                f" bullpen task ls, or land it by name: bullpen land {waiting[0]})")
    return (f"{', '.join(waiting)} have commits the base lacks but their tasks are not done"
            " (see bullpen task ls, or land one by name: bullpen land SESSION)")


def _queue_and_waiting(home: Path) -> tuple[list[str], list[str]]:
    """The landing queue, and the sessions with commits to land whose tasks are not all
    finished (what `--all` is waiting for)."""
    root = home.parent
    planned = config_file.load(root).sessions
    with open_operator_room(home) as room:
        known = {s.name: s for s in sessions.all_sessions(room.conn)}
        plan_ids = plan.plan_tasks(room.conn)
        last = landings.latest(room.conn)
        every = tasks.list_tasks(room.conn)
        done = set()
        for name in known:
            task_id = plan_ids.get(name)
            mine = [t for t in every if (t.id == task_id if task_id else t.assignee == name)]
            if mine and all(t.status in FINISHED_TASK_STATUSES for t in mine):
                done.add(name)
    ordered = [item.name for item in _plan_order(planned)]
    ordered += sorted(set(known) - set(ordered))

    def news(name: str) -> bool:
        session = known[name]
        head = _head(root, session.branch or branch_for(name))
        landed = name in last and last[name].head == head
        return head is not None and not landed and not _holds(root, head)

    queue = [name for name in ordered if name in done and news(name)]
    # Why nothing is ready: only asked (git calls for every other session) when so.
    waiting = [] if queue else [n for n in ordered if n in known and n not in done and news(n)]
    return queue, waiting


def has_news(home: Path, name: str) -> bool:
    """Whether `name`'s branch holds commits the base lacks."""
    with open_operator_room(home) as room:
        session = sessions.require(room.conn, name)
    head = _head(home.parent, session.branch or branch_for(name))
    return head is not None and not _holds(home.parent, head)


def _plan_order(planned: tuple[config_file.SessionPlan, ...]) -> list[config_file.SessionPlan]:
    """Parents before children, the file's order otherwise (the plan has no cycles)."""
    ordered: list[config_file.SessionPlan] = []
    placed: set[str] = set()
    while len(ordered) < len(planned):
        for item in planned:
            if item.name not in placed and all(p in placed for p in item.after):
                ordered.append(item)
                placed.add(item.name)
    return ordered


def _head(root: Path, branch: str) -> str | None:
    try:
        return resolve_commit(root, f"refs/heads/{branch}")
    except BadInput:
        return None


def _holds(root: Path, head: str) -> bool:
    """The base already holds `head` (nothing new to land)."""
    from worktrees.gitcmd import run_git

    return run_git(root, "merge-base", "--is-ancestor", head, "HEAD", ok=(0, 1)).status == 0
