"""`bullpen plan install PATH|GIT-URL`: a shared plan set up in this repository.

The plan is fetched (a git URL is cloned with GitPython; a directory is read as it is),
checked (its manifest, its bullpen.yaml parses), and only then written: bullpen.yaml
(refused when a different one is there, unless `--force`), and each session's setup
through its kind's adapter (`Adapter.install_setup`: Hermes profiles made with the
plan's SOUL.md, skills and config, then set up for bullpen). Everything that would
replace something different of the partner's is found by a dry run first, so a refusal
changes nothing. The source and version are recorded for `bullpen plan update`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from board.errors import BadInput
from board.home import main_worktree, room_home
from board.records import replace  # InstallRequest is a record
from board.room import prepare_home
from workers.agents.kinds import adapter_for
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
            version = head_commit(directory) or layout.digest(directory)
            origin = str(directory)
        manifest = layout.read_manifest(directory)
        if not (directory / layout.CONFIG_NAME).is_file():
            raise BadInput(f"the plan at {source} has no {layout.CONFIG_NAME}")
        try:
            config.load(directory)
        except BadInput as error:
            raise BadInput(f"the plan's {error}") from None
        yield Staged(directory, origin, version, manifest)


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


def install(source: str, force: bool = False, start: Path | None = None) -> Outcome:
    """Install the plan at `source` into the repository at `start` (default: the cwd)."""
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
        conflicts = [path for request in wanted
                     for path in run(replace(request, dry_run=True)).conflicts]
        if conflicts and not force:
            raise BadInput(f"{conflicts[0]} exists and differs from the plan's"
                           f"{f' (and {len(conflicts) - 1} more)' if len(conflicts) > 1 else ''};"
                           " pass --force to replace SOUL, skills and config (.env,"
                           " auth.json and memories are never touched)")
        prepare_home(home)
        outcome = Outcome()
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
