"""A team plan on disk: the directory `bullpen plan export` writes and `install` reads.

```
bullpen.yaml          the room's plan, as it is
plan.yaml             the manifest: each session's agent kind, profile and setup folder,
                      and every secret the partner must provide (names, never values)
agents/<session>/     the session's agent setup (Hermes: SOUL.md, skills/, config.yaml)
README.md, .gitignore how to install it; .env and auth.json kept out of a commit
```

On the partner's machine the room keeps `.bullpen/plan/source.yaml` (where the plan came
from and the version installed) and `.bullpen/plan/installed/` (that version's files),
so `update` can show what changed and tell the partner's own edits from the plan's.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from board import validate
from board.errors import BadInput
from workers.agents.plan_setup import MAX_FILE_BYTES

MANIFEST = "plan.yaml"
FORMAT = 1
AGENTS_DIR = "agents"
CONFIG_NAME = "bullpen.yaml"
RECORD_DIR = "plan"  # in the room's .bullpen
RECORD = "source.yaml"
INSTALLED = "installed"
SKIPPED = (".git",)
PROFILE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")  # an agent profile's name (Hermes')


@dataclass(frozen=True)
class PlannedSession:
    """One session of a plan: its agent command, kind, profile and setup folder."""

    name: str
    agent: str
    kind: str
    profile: str | None = None
    setup: str | None = None  # folder relative to the plan, e.g. agents/coder


@dataclass(frozen=True)
class Manifest:
    sessions: tuple[PlannedSession, ...]
    secrets: tuple[dict, ...] = ()
    not_shared: tuple[str, ...] = ()


@dataclass
class Change:
    """One file that differs between two versions of a plan."""

    path: str
    status: str  # added, removed, changed
    added: int = 0
    removed: int = 0
    diff: list[str] = field(default_factory=list)


def check_tree(directory: Path) -> None:
    """BadInput for the first entry of the plan (but .git) that is not a directory or a
    regular file of its own within MAX_FILE_BYTES: a symlink (to ~/.ssh/id_rsa, say), a
    hard link, a device or FIFO, a file too big. Only `lstat`: nothing is read."""
    for parent, dirs, names in os.walk(directory):
        if Path(parent) == directory:
            dirs[:] = [name for name in dirs if name not in SKIPPED]
        for name in sorted(dirs + names):
            path = Path(parent) / name
            shown = path.relative_to(directory).as_posix()
            if not name.isprintable() or _undecodable(name):
                raise BadInput(f"the plan holds a file named {ascii(shown)}: not printable"
                               " UTF-8 (nothing was written)")
            status = path.lstat()
            if stat.S_ISLNK(status.st_mode):
                raise BadInput(f"the plan's {shown} is a symlink; a plan holds regular files"
                               " only (nothing was written)")
            if stat.S_ISDIR(status.st_mode):
                continue
            if not stat.S_ISREG(status.st_mode):
                raise BadInput(f"the plan's {shown} is not a regular file (nothing was"
                               " written)")
            if status.st_nlink > 1:
                raise BadInput(f"the plan's {shown} is a hard link ({status.st_nlink} names);"
                               " a plan holds files of its own only (nothing was written)")
            if status.st_size > MAX_FILE_BYTES:
                raise BadInput(f"the plan's {shown} is {status.st_size // 1_000_000} MB, over"
                               f" the {MAX_FILE_BYTES // 1_000_000} MB a plan's file may be"
                               " (nothing was written)")


def _undecodable(name: str) -> bool:
    """Whether a file name holds bytes that are not UTF-8 (surrogates, as os gives them)."""
    try:
        name.encode()
    except UnicodeEncodeError:
        return True
    return False


def read_manifest(directory: Path) -> Manifest:
    """The plan's manifest; BadInput naming what is wrong."""
    path = directory / MANIFEST
    if not path.is_file():
        raise BadInput(f"{directory} is not a bullpen plan (no {MANIFEST}); make one with"
                       " bullpen plan export DIR")
    try:
        document = yaml.safe_load(path.read_text())
    except (yaml.YAMLError, UnicodeDecodeError):
        raise BadInput(f"{path} does not parse as YAML") from None
    if not isinstance(document, dict) or document.get("bullpen_plan") != FORMAT:
        raise BadInput(f"{path} is not a bullpen plan of format {FORMAT}")
    entries = document.get("sessions") or {}
    secrets, not_shared = document.get("secrets") or [], document.get("not_shared") or []
    if not isinstance(entries, dict):
        raise BadInput(f"{path}: sessions is not a mapping of session names")
    if not isinstance(secrets, list) or not all(isinstance(item, dict) for item in secrets):
        raise BadInput(f"{path}: secrets is not a list of mappings")
    if not isinstance(not_shared, list) or not all(isinstance(item, str)
                                                   for item in not_shared):
        raise BadInput(f"{path}: not_shared is not a list of texts")
    return Manifest(tuple(_planned(path, name, entry) for name, entry in entries.items()),
                    tuple(secrets), tuple(not_shared))


def _planned(path: Path, name: object, entry: object) -> PlannedSession:
    """One session of the manifest, checked: a session name, texts, its own folder."""
    try:
        validate.session_name(name if isinstance(name, str) else repr(name))
    except BadInput as error:
        raise BadInput(f"{path}: sessions: {error}") from None
    if not isinstance(entry, dict):
        raise BadInput(f"{path}: sessions.{name} is not a mapping")
    fields = {key: entry.get(key) for key in ("agent", "kind", "profile", "setup")}
    for key, value in fields.items():
        if value is not None and not isinstance(value, str):
            raise BadInput(f"{path}: sessions.{name}.{key} is not a text")
    if fields["setup"] not in (None, f"{AGENTS_DIR}/{name}"):
        raise BadInput(f"{path}: sessions.{name}.setup must be {AGENTS_DIR}/{name}, the"
                       " session's own folder of the plan")
    if fields["profile"] is not None and not PROFILE.match(fields["profile"]):
        raise BadInput(f"{path}: sessions.{name}.profile {fields['profile']!r} is no profile"
                       " name; use lower-case letters, digits, '-' or '_'")
    return PlannedSession(str(name), fields["agent"] or "", fields["kind"] or "",
                          fields["profile"], fields["setup"])


def write_manifest(directory: Path, sessions: list[dict], secrets: list[dict],
                   not_shared: list[str]) -> None:
    document = {"bullpen_plan": FORMAT,
                "sessions": {entry.pop("name"): entry for entry in sessions},
                "secrets": secrets, "not_shared": not_shared}
    (directory / MANIFEST).write_text(
        "# A bullpen team plan: install it with bullpen plan install PATH-OR-GIT-URL\n"
        + yaml.safe_dump(document, sort_keys=False, default_flow_style=False))


def files_of(directory: Path) -> dict[str, bytes]:
    """Every regular file of a plan directory (not .git), relative path -> bytes."""
    found = {}
    for path in sorted(directory.rglob("*")):
        relative = path.relative_to(directory)
        if relative.parts[0] in SKIPPED or path.is_symlink() or not path.is_file():
            continue
        found[relative.as_posix()] = path.read_bytes()
    return found


def digest(directory: Path) -> str:
    """A content hash of a plan directory (its version, when it is no git checkout)."""
    hashed = hashlib.sha1()
    for relative, data in files_of(directory).items():
        hashed.update(relative.encode() + b"\0" + hashlib.sha1(data).digest())
    return "sha1:" + hashed.hexdigest()[:12]


def changes(old: Path | None, new: Path) -> list[Change]:
    """What differs from plan version `old` to `new`, file by file, with line diffs."""
    before = files_of(old) if old is not None and old.is_dir() else {}
    after = files_of(new)
    found = []
    for path in sorted(set(before) | set(after)):
        if before.get(path) == after.get(path):
            continue
        status = "added" if path not in before else "removed" if path not in after \
            else "changed"
        change = Change(path, status)
        try:
            old_lines = before.get(path, b"").decode().splitlines(keepends=True)
            new_lines = after.get(path, b"").decode().splitlines(keepends=True)
        except UnicodeDecodeError:
            found.append(change)
            continue
        for line in difflib.unified_diff(old_lines, new_lines, f"a/{path}", f"b/{path}"):
            change.diff.append(line if line.endswith("\n") else line + "\n")
            if line.startswith("+") and not line.startswith("+++"):
                change.added += 1
            elif line.startswith("-") and not line.startswith("---"):
                change.removed += 1
        found.append(change)
    return found


def copy_plan(source: Path, target: Path) -> None:
    """Replace `target` with the plan files of `source` (regular files, no .git)."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True, mode=0o700)
    for relative, data in files_of(source).items():
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        (target / relative).write_bytes(data)


def record_dir(home: Path) -> Path:
    return home / RECORD_DIR


def read_record(home: Path) -> dict:
    """Where the installed plan came from and its version; BadInput when none is."""
    path = record_dir(home) / RECORD
    try:
        document = yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise BadInput("no plan is installed in this room; install one with bullpen plan"
                       " install PATH-OR-GIT-URL") from None
    except (yaml.YAMLError, UnicodeDecodeError):
        raise BadInput(f"{path} does not parse; install the plan again") from None
    if not isinstance(document, dict) or not document.get("source"):
        raise BadInput(f"{path} names no source; install the plan again")
    return document


def write_record(home: Path, source: str, version: str, staged: Path) -> None:
    """Record the installed version and keep its files for the next update."""
    directory = record_dir(home)
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    copy_plan(staged, directory / INSTALLED)
    (directory / RECORD).write_text(yaml.safe_dump({"source": source, "version": version},
                                                   sort_keys=False))
