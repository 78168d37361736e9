"""Which machine runs each session of one shared plan (`bullpen.yaml` is tracked: every
machine of a room reads the same file).

A session runs on the machine its `machine:` names. One without `machine:` runs on the
machine that owns the room (the one that ran `bullpen room invite`); in a room with no
owner recorded (one machine, or machines configured by hand) it runs on whichever
machine starts it first, as before: `up` never starts a session already in the room.
"""

from __future__ import annotations

from dataclasses import dataclass

from workers.room.config import Config, SessionPlan


@dataclass(frozen=True)
class Placement:
    here: tuple[SessionPlan, ...]  # this machine starts these
    elsewhere: tuple[tuple[SessionPlan, str], ...]  # (session, the machine that runs it)


def place(plan: Config, here: str, owner: str | None) -> Placement:
    """Split the plan's sessions into this machine's and the others'."""
    mine: list[SessionPlan] = []
    others: list[tuple[SessionPlan, str]] = []
    for item in plan.sessions:
        target = item.machine or owner or here
        if target == here:
            mine.append(item)
        else:
            others.append((item, target))
    return Placement(tuple(mine), tuple(others))
