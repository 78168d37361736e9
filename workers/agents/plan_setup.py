"""One session's agent setup in a shared plan: what a kind exports and installs.

A kind's adapter exports a session's setup into the plan's `agents/<session>/` folder
(`Adapter.export_setup`) and installs it on the partner's machine
(`Adapter.install_setup`). Only files on an allow-list are copied (`copy_tree` takes
regular files only: no symlinks, nothing hidden, no dependency or cache folders), so a
file nobody listed never travels. Installing again over an earlier install is a
three-way choice per file (`three_way`): the partner's own edits are kept and named.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from board.errors import BadInput
from board.records import field, record
from workers.agents.plan_secrets import Secret

SKIPPED_DIRS = frozenset({"node_modules", "venv", "site-packages", "__pycache__"})
MAX_FILE_BYTES = 1_000_000  # a skill's files are text and scripts; bigger is not setup


@record(frozen=True)
class ExportRequest:
    """Export session `name`'s setup (its agent `agent`, its `profile` as registered or
    planned) of the repository `root` into `target`. `managed_deny` are the command
    patterns bullpen itself puts into agents' config (its floor and the room's `deny:`,
    which travels in bullpen.yaml): not part of the agent's own setup."""

    name: str
    agent: str
    profile: str | None
    root: Path
    target: Path
    managed_deny: tuple[str, ...] = ()


@record
class Setup:
    """What one session's export wrote (`files`, relative to its folder), what the
    partner must provide (`secrets`), and what was left out on purpose (`notes`).
    `literals` are the secret values seen, for the export's final check: never written."""

    kind: str
    profile: str | None = None
    files: list[str] = field(default_factory=list)
    secrets: list[Secret] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    literals: list[str] = field(default_factory=list)


@record(frozen=True)
class InstallRequest:
    """Install session `name`'s setup from the plan's folder `source` (None: the plan
    has none) for the repository `root` and room `home`. `previous` is the same folder
    of the version installed before (an update); `force` replaces what differs; with
    `dry_run` nothing is written (update shows what would happen)."""

    name: str
    agent: str
    profile: str | None
    source: Path
    root: Path
    home: Path
    previous: Path | None = None
    force: bool = False
    dry_run: bool = False


@record
class Installed:
    """What installing one session's setup did: `written` (paths), `conflicts` (the
    partner's edits kept, each with its path), `replaced` (those of `written` that were
    there already), `brings` (what the setup runs, grants or sets: `plan_review`), and
    for each secret the variable, where to put it and whether it is provided already."""

    where: str = ""  # the profile or folder the setup went to
    written: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)  # written over a file already there
    brings: list[str] = field(default_factory=list)  # hooks, commands, permissions, env
    conflicts: list[str] = field(default_factory=list)
    secrets: list[tuple[str, str, bool]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def regular_files(directory: Path) -> list[str]:
    """The files `copy_tree` carries from `directory`, as relative POSIX paths, sorted:
    regular files only, none hidden, none in dependency or cache folders, none bigger
    than MAX_FILE_BYTES, nothing reached through a symlink and no hard link (whose
    other name may be anything: an ssh key)."""
    found: list[str] = []
    if not directory.is_dir() or directory.is_symlink():
        return found
    for parent, dirs, names in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS
                         and not (Path(parent) / d).is_symlink())
        for name in sorted(names):
            path = Path(parent) / name
            if name.startswith(".") or path.is_symlink() or not path.is_file():
                continue
            status = path.lstat()
            if status.st_size > MAX_FILE_BYTES or status.st_nlink > 1:
                continue
            found.append(path.relative_to(directory).as_posix())
    return found


def copy_tree(source: Path, target: Path) -> list[str]:
    """Copy `regular_files(source)` into `target`; returns what was copied."""
    copied = regular_files(source)
    for relative in copied:
        destination = target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / relative, destination)
        if os.access(source / relative, os.X_OK):
            destination.chmod(0o755)
    return copied


def read_bytes(path: Path | None) -> bytes | None:
    """A file's bytes, or None when there is none (or it is not a regular file)."""
    if path is None or path.is_symlink() or not path.is_file():
        return None
    return path.read_bytes()


def capped(path: Path) -> bytes | None:
    """`read_bytes(path)` for a file an export carries as it is (SOUL.md, CLAUDE.md):
    BadInput, before reading it, when it is over MAX_FILE_BYTES."""
    if path.is_file() and not path.is_symlink() and path.stat().st_size > MAX_FILE_BYTES:
        raise BadInput(f"{path} is {path.stat().st_size // 1_000_000} MB, over the"
                       f" {MAX_FILE_BYTES // 1_000_000} MB a plan's file may be; shorten it")
    return read_bytes(path)


def three_way(local: bytes | None, previous: bytes | None, new: bytes | None,
              first_install: bool, force: bool) -> str:
    """What to do with one file: `keep` (nothing to do), `take` (write the plan's, or
    remove it when the plan dropped it) or `conflict` (the partner changed it and so did
    the plan: theirs is kept)."""
    if local == new:
        return "keep"
    if force:
        return "take"
    if first_install:
        return "take" if local is None else "conflict"
    if new == previous:
        return "keep"  # the plan did not change it; the partner may have
    return "take" if local == previous else "conflict"


def inside(directory: Path, relative: str) -> Path:
    """`directory / relative`, where an install writes: BadInput unless it stays inside
    `directory` with no symlink on the way (a link of the partner's, or one planted,
    would take the write elsewhere)."""
    parts = Path(relative).parts
    if not parts or Path(relative).is_absolute() or ".." in parts:
        raise BadInput(f"{relative}: a plan's file must stay inside its folder")
    current = directory
    for part in parts:
        current = current / part
        if current.is_symlink():
            raise BadInput(f"{current} is a symlink; a plan install writes nothing through"
                           " one: remove the link, or install on another profile")
    return current


def home_of(directory: Path, base: Path) -> Path:
    """`directory` (a profile or setup folder), BadInput unless it lies inside `base`
    (the agents' home: Hermes' root, the room's agents folder) with no symlink below
    `base` on the way."""
    try:
        relative = directory.relative_to(base)
    except ValueError:
        raise BadInput(f"{directory} is outside {base}; a plan installs only there") \
            from None
    return inside(base, relative.as_posix()) if relative.parts else directory
