"""What one landing may change of the room's rules: `worktrees.land` calls the guard on
the built result, before the check runs (its `vet`), and it refuses a result that
commits the room's own files, or changes the room's rules without the operator's
leave, or changes others than the ones the operator was shown (`land_rules`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from workers.room import land_rules
from workers.room.config import Config
from workers.room.land_rules import RuleChange, RulesChanged
from worktrees.land import LandRefused

ALLOW_CONFIG = "--allow-config"


@dataclass
class RuleGuard:
    """The guard of landing `name`'s `branch` on `into`, checked by `check`; `fallback`
    is the rules read before the run (for a base whose committed bullpen.yaml does not
    parse). After the landing, `accepted` holds the rule changes it brought."""

    root: Path
    name: str
    branch: str
    into: str
    check: str | None
    fallback: Config
    allow_config: bool = False  # the operator accepts changes to the rules
    shown: tuple[RuleChange, ...] | None = None  # ... only these (the dashboard's question)
    accepted: list[RuleChange] = field(default_factory=list)

    def __call__(self, old: str, new: str) -> None:
        """Refuse (LandRefused, RulesChanged) the result `new` built on the base `old`."""
        name = self.name
        changed = land_rules.touched(self.root, old, new, self.check)
        tracked = land_rules.room_files(changed)
        if tracked:
            raise LandRefused(f"{name} commits files in the room's own directory"
                              f" ({', '.join(tracked[:3])}); nothing landed — they are never"
                              " tracked: take them off the branch (git rm -r --cached"
                              " .bullpen) and land again")
        found = land_rules.changes_between(self.root, old, new, f"{name}'s", self.check,
                                           fallback=self.fallback, changed=changed)
        if found and not self.allow_config:
            raise RulesChanged(
                f"{name} changes the room's rules ({land_rules.listed(found)}); nothing"
                f" landed — they are the operator's: read them (git diff"
                f" {self.into}...{self.branch} -- {land_rules.files_of(found)}) and land with"
                f" {ALLOW_CONFIG} to accept them", found)
        unseen = [change for change in found
                  if self.shown is not None and change not in self.shown]
        if unseen:
            raise RulesChanged(f"{name}'s changes to the room's rules are not the ones you"
                               f" were shown ({land_rules.listed(unseen)}); nothing landed —"
                               " ask again", found)
        self.accepted.extend(found)
