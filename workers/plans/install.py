"""`bullpen plan install PATH|GIT-URL`: a shared plan set up in this repository.

The plan is fetched (a git URL is cloned with GitPython; a directory is read as it is),
checked whole before anything is written: regular files of its own only, each within the
cap (`layout.check_tree`: no symlink, hard link or 200 MB SOUL.md), its manifest's
sessions named by the session-name rule and each one of its bullpen.yaml's, which parses.
Then each session's setup is installed through its kind's adapter
(`Adapter.install_setup`: Hermes profiles made with the plan's SOUL.md, skills and
config, then set up for bullpen), a dry run first: it refuses a write outside the
agents' own home or through a symlink, and an `env` a plan may never set
(`plan_review`), and finds what would replace something of the partner's (refused
unless `--force`). What the plan brings (the sessions' commands, hooks, permission
modes, `env`, files replaced) is shown and must be accepted (`confirm`) before the first
write. The source and version are recorded for `bullpen plan update`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from board.errors import BadInput
from board.home import main_worktree, room_home
from board.records import replace  # InstallRequest is a record
from board.room import prepare_home
from workers.agents.kinds import adapter_for
from workers.agents.plan_review import printable
from workers.agents.plan_setup import Installed, InstallRequest
from workers.plans import layout
from workers.room import config
from worktrees.clone import clone, head_commit, looks_like_url


@dataclass(frozen=True)
class Staged:
    """A plan version ready to read: its directory, where it came from, its version."""

    directory: Path
    source: str
    version: str
    manifest: layout.Manifest
    plan: config.Config


@contextmanager
def staged(source: str) -> Iterator[Staged]:
    """The plan at `source` (a git URL, cloned into a temporary directory, or a local
    directory), checked: its manifest reads and its bullpen.yaml parses."""
    with tempfile.TemporaryDirectory(prefix="bullpen-plan-") as work:
        if looks_like_url(source):
            directory = Path(work) / "plan"
            version = clone(source, directory)
            origin = source
        else:
            directory = Path(source).expanduser().resolve()
            if not directory.is_dir():
                raise BadInput(f"{source} is neither a directory nor a git URL")
            version, origin = "", str(directory)
        if not (directory / layout.MANIFEST).is_file():
            layout.read_manifest(directory)  # says it is no plan, before a walk of it
        layout.check_tree(directory)  # before any file is read
        version = version or head_commit(directory) or layout.digest(directory)
        manifest = layout.read_manifest(directory)
        if not (directory / layout.CONFIG_NAME).is_file():
            raise BadInput(f"the plan at {source} has no {layout.CONFIG_NAME}")
        try:
            plan = config.load(directory)
        except BadInput as error:
            raise BadInput(f"the plan's {error}") from None
        for session in manifest.sessions:
            planned = plan.session(session.name)
            if planned is None:
                raise BadInput(f"the plan's {layout.MANIFEST} names {session.name}, which is"
                               f" not a session of the plan's {layout.CONFIG_NAME}")
            if session.agent != planned.agent:
                raise BadInput(f"the plan's {layout.MANIFEST} gives {session.name} the agent"
                               f" {session.agent!r}, its {layout.CONFIG_NAME}"
                               f" {planned.agent!r}")
        yield Staged(directory, origin, version, manifest, plan)


@dataclass
class Outcome:
    lines: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)


def requests(plan: Staged, root: Path, home: Path,
             previous: Path | None = None, force: bool = False) -> list[InstallRequest]:
    """One install request per session of the plan that has a setup folder."""
    found = []
    for session in plan.manifest.sessions:
        if session.setup is None:
            continue
        before = previous / session.setup if previous is not None else None
        found.append(InstallRequest(
            session.name, session.agent, session.profile, plan.directory / session.setup,
            root, home, previous=before if before is not None and before.is_dir() else None,
            force=force))
    return found


def run(request: InstallRequest) -> Installed:
    return adapter_for(request.agent).install_setup(request)


def describe(name: str, done: Installed, outcome: Outcome) -> None:
    """Lines saying what one session's install did."""
    if done.where:
        written = len(done.written)
        outcome.lines.append(f"{name}: {done.where}: {written} file{'s' * (written != 1)}"
                             " written")
    for conflict in done.conflicts:
        outcome.lines.append(f"{name}: kept your own {conflict} (the plan changed it too)")
        outcome.conflicts.append(conflict)
    outcome.lines += [f"{name}: {note}" for note in done.notes]


def secrets_lines(results: list[tuple[str, Installed]]) -> list[str]:
    """What the partner must provide: each variable, where, and whether it is there."""
    wanted: dict[tuple[str, str], tuple[list[str], bool]] = {}
    for name, done in results:
        for variable, where, provided in done.secrets:
            users, _ = wanted.setdefault((variable, where), ([], provided))
            users.append(name)
    if not wanted:
        return ["secrets: the plan needs none"]
    lines = ["secrets you must provide (in the file named, or in your environment):"]
    for (variable, where), (users, provided) in wanted.items():
        state = "provided" if provided else "MISSING"
        lines.append(f"  {variable}  in {where}  for {', '.join(users)}  [{state}]")
    return lines


def commands_of(plan: config.Config) -> list[str]:
    """What the plan's bullpen.yaml runs: each session's agent command and setup, and
    land's check."""
    found = []
    for session in plan.sessions:
        found.append(f"{layout.CONFIG_NAME}: sessions.{session.name}.agent: {session.agent}")
        if session.setup:
            found.append(f"{layout.CONFIG_NAME}: sessions.{session.name}.setup:"
                         f" {session.setup}")
    if plan.land.check:
        found.append(f"{layout.CONFIG_NAME}: land.check: {plan.land.check}")
    return found


def brings_lines(results: list[tuple[str, Installed]], commands: list[str]) -> list[str]:
    """The list shown before an install or update writes: what the plan runs, grants,
    sets and replaces."""
    lines = [f"  {line}" for line in commands]
    for name, done in results:
        lines += [f"  {name}: {line}" for line in done.brings]
        lines += [f"  {name}: replaces your {path}" for path in done.replaced]
    return ["the plan brings (review it: these run, or grant, on your machine):",
            *map(printable, lines)] if lines else []


def install(source: str, confirm: Callable[[list[str]], bool], force: bool = False,
            start: Path | None = None) -> Outcome:
    """Install the plan at `source` into the repository at `start` (default: the cwd),
    once `confirm` (given what the plan brings) accepts it."""
    root = main_worktree(start)
    home = room_home(start=root)
    with staged(source) as plan:
        target = root / layout.CONFIG_NAME
        new = (plan.directory / layout.CONFIG_NAME).read_bytes()
        placed = not target.exists() or target.read_bytes() != new
        if target.exists() and placed and not force:
            raise BadInput(f"{target} differs from the plan's; move it aside, or pass"
                           " --force to replace it")
        wanted = requests(plan, root, home, force=force)
        dry = [(request.name, run(replace(request, dry_run=True))) for request in wanted]
        conflicts = [path for _, done in dry for path in done.conflicts]
        if conflicts and not force:
            raise BadInput(f"{conflicts[0]} exists and differs from the plan's"
                           f"{f' (and {len(conflicts) - 1} more)' if len(conflicts) > 1 else ''};"
                           " pass --force to replace SOUL, skills and config (.env,"
                           " auth.json and memories are never touched)")
        outcome = Outcome()
        shown = brings_lines(dry, commands_of(plan.plan))
        if target.exists() and placed:
            shown.insert(1, f"  replaces your {target}")
        if (placed or any(done.written for _, done in dry)) and not confirm(shown):
            outcome.lines.append("not installed; nothing was written")
            return outcome
        prepare_home(home)
        if placed:
            target.write_bytes(new)
        outcome.lines.append(f"{layout.CONFIG_NAME}: {'placed' if placed else 'unchanged'}"
                             f" ({len(plan.manifest.sessions)} sessions)")
        results = []
        for request in wanted:
            done = run(request)
            results.append((request.name, done))
            describe(request.name, done, outcome)
        outcome.lines += [f"left out: {note}" for note in plan.manifest.not_shared]
        outcome.lines += secrets_lines(results)
        layout.write_record(home, plan.source, plan.version, plan.directory)
        outcome.lines.append(f"installed {plan.source} at {plan.version};"
                             " then: bullpen up")
    return outcome
