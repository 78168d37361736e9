"""`bullpen land`: a session's branch onto the base branch, one at a time or as a queue.

The git work (temporary worktree, check, compare-and-swap of the base) is
`worktrees.land`; here are the room's rules around it: landing is a privileged power
(`may: [land]`), each attempt is audited when it starts (before the check runs) and
with its outcome, each landing recorded in the board (so `ls` can say "landed
abc1234"), and `--all` lands the sessions whose work is done in plan order, parents
first, stopping at the first refusal. The rules a run lands by (`land:`) are read once,
from the base, before it starts; a branch that would change the room's rules in
bullpen.yaml is refused unless the operator allows it (`land_rules`). What a killed
landing left behind is removed first (`land_scratch`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from board import audit, authority, landings, plan, sessions, tasks
from board.authority import Power
from board.connection import Connection
from board.errors import BadInput, Refused
from board.identity import Caller
from board.room import open_operator_room
from board.vocabulary import FINISHED_TASK_STATUSES
from workers.room import config as config_file
from workers.room import land_rules
from workers.room.code_view import CodeFlow, code_flows
from workers.room.land_guard import ALLOW_CONFIG, RuleGuard
from workers.room.land_rules import RuleChange, RulesChanged
from worktrees import land_scratch
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
    rule_changes: tuple[RuleChange, ...] = ()  # the room's rules its landing would change
    rules_unreadable: str | None = None  # why its bullpen.yaml would be refused outright
    branch: str | None = None  # the session's branch


def landing_preview(home: Path, name: str) -> LandingPreview:
    """Where `name` would land, how, after which check, which of the room's rules it
    would change, and where its code stands now; raises LandRefused when there is no
    branch to land on (a detached main checkout)."""
    root = home.parent
    settings = config_file.load(root).land
    into = base_branch(root)
    with open_operator_room(home) as room:
        session = sessions.require(room.conn, name)
        flow = code_flows(room.conn, root, [session]).get(name, CodeFlow(session=name))
    branch = session.branch or branch_for(name)
    head = _head(root, branch)
    changes: tuple[RuleChange, ...] = ()
    unreadable = None
    if head is not None:
        try:
            changes = land_rules.predicted_changes(root, f"refs/heads/{into}", head,
                                                   f"{name}'s", settings.check)
        except LandRefused as refused:
            unreadable = str(refused)
    return LandingPreview(name, into, settings.strategy, settings.check, flow, changes,
                          unreadable, branch)


def land_session(home: Path, caller: Caller, name: str,
                 on_output: Output = lambda line: None, *, allow_config: bool = False,
                 shown: tuple[RuleChange, ...] | None = None,
                 rules: config_file.Config | None = None) -> str:
    """Land `name`'s branch; returns the line saying what landed. Raises Refused (not
    allowed), RulesChanged (it changes the room's rules and `allow_config` is not set)
    or LandRefused (conflict, failing check…), all audited, nothing changed.

    `shown` are the rule changes the operator was shown and accepted (the dashboard's
    question): with them, any other change refuses. `rules` is the bullpen.yaml to land
    by (`land_all` reads it once for its whole run); by default it is read from the
    base now."""
    root = home.parent
    rules = rules or config_file.load(root)
    settings = rules.land
    with open_operator_room(home) as room:
        remove_leftovers(room.conn, root, caller)
        session = sessions.require(room.conn, name)
        branch = session.branch or branch_for(name)
        if allow_config and not caller.is_operator:
            _refuse_allow_config(room.conn, caller, name)
        guard = RuleGuard(root, name, branch, base_branch(root), settings.check, rules,
                          allow_config, shown)
        with authority.privileged(room.conn, caller, Power.LAND, name):
            audit.record(room.conn, caller.name, Power.LAND.value, name, audit.STARTED,
                         _attempt(settings, allow_config))
            landing = land(root, branch, strategy=Strategy(settings.strategy),
                           check=settings.check, label=name,
                           worktree=session.worktree or None, on_output=on_output, vet=guard)
        landings.record(room.conn, name, base_branch=landing.base_branch,
                        old_base=landing.old, new_base=landing.new, head=landing.head,
                        strategy=landing.strategy, landed_by=caller.name)
        if guard.accepted:
            audit.record(room.conn, caller.name, f"{Power.LAND.value} {ALLOW_CONFIG}", name,
                         authority.DONE, land_rules.listed(guard.accepted))
    checked = " after the check passed" if settings.check else ""
    changed = (f"; it changed the room's rules: {land_rules.listed(guard.accepted)}"
               if guard.accepted else "")
    return (f"landed {name} on {landing.base_branch}: {landing.old[:7]} -> {landing.new[:7]}"
            f" ({landing.commits} commit{'s' if landing.commits != 1 else ''},"
            f" {landing.strategy}{checked}){changed}")


def land_all(home: Path, caller: Caller, on_output: Output = lambda line: None,
             say: Output = print, *, allow_config: bool = False) -> int:
    """Land every done session with work to land, in plan order; stop at the first
    refusal (re-raised, naming the session). Returns how many landed. The `land:` rules
    are read once, before the first landing: a landed branch cannot change them for
    the ones after it."""
    rules = config_file.load(home.parent)
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
            say(land_session(home, caller, name, on_output, allow_config=allow_config,
                             rules=rules))
        except RulesChanged as refused:  # exit 2: the operator's --allow-config is wanted
            raise RulesChanged(f"stopped at {name} ({landed} landed before it): {refused}",
                               refused.changes) from None
        except LandRefused as refused:
            raise LandRefused(f"stopped at {name} ({landed} landed before it): {refused}") \
                from None
        landed += 1
    return landed


def remove_leftovers(conn: Connection, root: Path, caller: Caller) -> list[str]:
    """Remove the temporary worktrees of landings that were killed before they finished
    (each removal audited); returns a line for each."""
    said = []
    for leftover in land_scratch.remove_leftovers(root):
        whose = f" of {leftover.label}" if leftover.label else ""
        by = f" (pid {leftover.pid})" if leftover.pid else ""
        line = (f"removed {leftover.path}, left by a landing{whose}{by} that ended before it"
                " finished")
        audit.record(conn, caller.name, "land cleanup", leftover.label, authority.DONE, line)
        said.append(line)
    return said


def _refuse_allow_config(conn: Connection, caller: Caller, name: str) -> None:
    reason = (f"session {caller.name!r} may not land with {ALLOW_CONFIG}: the room's rules"
              " are the operator's; only the operator accepts a branch's changes to them")
    audit.record(conn, caller.name, f"{Power.LAND.value} {ALLOW_CONFIG}", name,
                 authority.REFUSED, reason)
    raise Refused(reason)


def _attempt(settings: config_file.LandSettings, allow_config: bool) -> str:
    check = f"check: {settings.check}" if settings.check else "no check"
    allowed = f", {ALLOW_CONFIG}" if allow_config else ""
    return f"{settings.strategy}, {check}{allowed}"


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
