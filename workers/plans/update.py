"""`bullpen plan update`: the newer version of the installed plan, shown, then applied.

Fetched from the recorded source like a `git fetch` (a clone into a temporary
directory) and checked as an install checks it; what changed since the installed
version is shown file by file with a diff, with the hooks, commands, permissions and
`env` it brings that the installed version did not, before anything is written.
Applying is a three-way choice per file: a file the partner edited since the install
and the plan changed too is kept as theirs and named (their secrets live in `.env` or
their environment, which the plan never writes).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from board.home import main_worktree, room_home
from board.records import replace  # InstallRequest is a record
from workers.agents.plan_setup import read_bytes, three_way
from workers.plans import layout
from workers.plans.install import (
    Outcome,
    brings_lines,
    describe,
    requests,
    run,
    secrets_lines,
    staged,
)

DIFF_LINES = 200  # shown at most; the file list is always whole


def update(confirm: Callable[[list[str]], bool], start: Path | None = None) -> Outcome:
    """Fetch the installed plan's source; show what changed; apply when `confirm`
    (given the lines shown) says so."""
    root = main_worktree(start)
    home = room_home(start=root)
    record = layout.read_record(home)
    installed = layout.record_dir(home) / layout.INSTALLED
    outcome = Outcome()
    with staged(str(record["source"])) as plan:
        found = layout.changes(installed, plan.directory)
        if not found:
            outcome.lines.append(f"the plan is up to date ({plan.source} at"
                                 f" {record.get('version')})")
            return outcome
        shown = [f"{plan.source}: {record.get('version')} -> {plan.version}",
                 f"{len(found)} file{'s' * (len(found) != 1)} changed:"]
        shown += [f"  {change.status:8} {change.path} (+{change.added} -{change.removed})"
                  for change in found]
        diff = [line for change in found for line in change.diff]
        shown += [line.rstrip("\n") for line in diff[:DIFF_LINES]]
        if len(diff) > DIFF_LINES:
            shown.append(f"… {len(diff) - DIFF_LINES} more diff lines")
        config_action = three_way(read_bytes(root / layout.CONFIG_NAME),
                                  read_bytes(installed / layout.CONFIG_NAME),
                                  read_bytes(plan.directory / layout.CONFIG_NAME),
                                  first_install=False, force=False)
        wanted = requests(plan, root, home, previous=installed)
        dry = [(request.name, run(replace(request, dry_run=True))) for request in wanted]
        kept = [path for _, done in dry for path in done.conflicts]
        if config_action == "conflict":
            kept.insert(0, str(root / layout.CONFIG_NAME))
        shown += [f"kept as yours (you changed it, and so did the plan): {path}"
                  for path in kept]
        shown += brings_lines(dry, [])  # what this version brings that the last did not
        if not confirm(shown):
            outcome.lines = shown + ["not applied"]
            return outcome
        outcome.lines = shown
        if config_action == "take":
            (root / layout.CONFIG_NAME).write_bytes(
                (plan.directory / layout.CONFIG_NAME).read_bytes())
            outcome.lines.append(f"{layout.CONFIG_NAME}: updated")
        elif config_action == "conflict":
            outcome.conflicts.append(str(root / layout.CONFIG_NAME))
        results = []
        for request in wanted:
            done = run(request)
            results.append((request.name, done))
            describe(request.name, done, outcome)
        outcome.lines += secrets_lines(results)
        layout.write_record(home, plan.source, plan.version, plan.directory)
        outcome.lines.append(f"updated to {plan.version}; restart the sessions whose setup"
                             " changed (bullpen restart NAME)")
    return outcome
