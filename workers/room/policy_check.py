"""What a plan asks that bullpen cannot do for a session, said once by `up` (and doctor):
the room's `deny:` it cannot hold, and `deliver: type` for a shell.

Claude (its PreToolUse hook), Hermes (its profile's `approvals.deny`) and Codex (its
execpolicy rules, prefix patterns only) enforce the room's command policy themselves;
bullpen cannot stop a generic program, a shell, Aider, or an agent command that is not
one program (the flags bullpen adds would land on the wrong one). An installed release of
a kind that enforces it may not (Hermes before 0.17: `release_gaps`).
"""

from __future__ import annotations

from board.models import Session
from workers.agents.adapter import DENY_NOT_ENFORCED, Route
from workers.agents.kinds import adapter_for, program_of
from workers.room.config import Config


def release_gaps(plan: Config, running: list[Session] | None = None) -> list[str]:
    """One line naming the sessions whose agent's kind enforces the room's list (and
    bullpen's floor) but whose installed release cannot: said whether or not the plan
    has `deny:` (the floor is always there), and never `ok` in doctor."""
    agents = _agents(plan, running)
    lost = [name for name, agent, deliver in agents
            if (adapter := adapter_for(agent, deliver)).tested_versions
            and adapter.capabilities(agent, None).deny and adapter.enforces_deny(agent) is None]
    if not lost:
        return []
    return [f"warning: {', '.join(lost)}: {DENY_NOT_ENFORCED}: the installed release of its"
            " agent ignores the room's deny list and bullpen's floor and cannot be blocked"
            " by a hook; bullpen cannot stop its commands (run a tested release)"]


def _agents(plan: Config, running: list[Session] | None) -> list[tuple[str, str, str | None]]:
    return [(p.name, p.agent, p.deliver) for p in plan.sessions] if running is None else \
        [(s.name, s.agent or "sh", s.deliver) for s in running]


def warnings(plan: Config, running: list[Session] | None = None) -> list[str]:
    """One line per kind of gap when the plan has `deny:` (none otherwise)."""
    if not plan.deny:
        return []
    agents = _agents(plan, running)
    unheld = [name for name, agent, deliver in agents
              if adapter_for(agent, deliver).capabilities(agent, None).deny is None]
    lines = []
    if unheld:
        lines.append(f"warning: deny: is not enforced for {', '.join(unheld)}: bullpen"
                     " cannot stop the commands of that agent (only Claude Code, Hermes"
                     " and Codex enforce it)")
    gaps = {pattern for name, agent, deliver in agents
            for pattern in adapter_for(agent, deliver).deny_gaps(agent, plan.deny)}
    if gaps:
        lines.append("warning: Codex cannot hold these deny: patterns (not a prefix of"
                     f" literal words): {', '.join(sorted(gaps))}")
    return lines


def deliver_warnings(plan: Config) -> list[str]:
    """`deliver: type` on a session whose kind's notes are never typed (its adapter's
    route: a shell, where a pager in front would take the text as keys), so its notes
    stay in its inbox."""
    shells = [f"{p.name} ({program_of(p.agent) or 'sh'})" for p in plan.sessions
              if p.deliver == "type" and adapter_for(p.agent, p.deliver).route == Route.ANNOUNCE]
    if not shells:
        return []
    return [f"warning: deliver: type does nothing for {', '.join(shells)}: bullpen never"
            " types into a shell; its notes stay in its inbox (bullpen note inbox), held"
            " as 'shell session'"]
