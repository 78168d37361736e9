"""Which raw filesystem events are changes a reader should hear about, and whose they are.

The watcher hands over a debounced burst of `(kind, absolute path)` events. This module
routes each event to the watched directory that holds it (the deepest one, so an edit in
a session's worktree under `.bullpen/worktrees/` belongs to that session, not to the main
checkout), drops git internals (keeping only what reveals a commit: HEAD files, branch
refs, packed-refs, and each checkout's index, whose writes mark git at work in it), editor
temp files and transient files, and asks git which of the rest still differ from HEAD.
Only `dirty()` runs git; everything else is pure.
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

ADDED, MODIFIED, DELETED = 1, 2, 3  # watchfiles.Change values

ALWAYS_SKIPPED_DIRS = (".git", ".bullpen", "__pycache__")
# Swap, backup and write-then-rename temp names of common editors and tools.
EDITOR_TEMP_PATTERNS = (
    "*.swp", "*.swo", "*.swx", "*.swpx", "*~", ".#*", "#*#", "4913", "*.tmp", "*.temp",
    "*.kate-swp", ".goutputstream-*", "*___jb_tmp___", "*___jb_old___", ".~lock.*#",
    "*.orig", "*.rej", "*.pyc", ".DS_Store", "*.crdownload", "*.part",
)
# Agents' own write-then-rename temp files: Claude Code writes `app.py.tmp.<pid>.<12 hex>`
# (or `.<Date.now()>`), Hermes `.hermes-tmp.XXXXXX` (or `.hermes-tmp.<pid>[.XXXXXX]`).
AGENT_TEMP = re.compile(r"\.tmp\.\d+\.[0-9a-f]{6,}$|^\.hermes-tmp\.")
# A checkout's index and the lock git writes it through, in that checkout's git dir.
INDEX, INDEX_LOCK = "index", "index.lock"


@dataclass(frozen=True)
class ChangeBatch:
    """One coalesced change by one source: uncommitted edits, or a commit and its files."""

    source: str
    paths: tuple[str, ...]
    commit: str | None = None
    message: str | None = None
    # A commit's paths that the worktree held as committed before the burst that saw the
    # commit, and still does: already reported as edits, so their alerts were raised.
    as_edited: tuple[str, ...] = ()


@dataclass(frozen=True)
class Target:
    """A watched checkout: a session's worktree or the main checkout (`MAIN_CHECKOUT`)."""

    source: str
    root: Path
    git_dir: Path | None = None  # its own git dir (the common one for the main checkout)


@dataclass
class Routed:
    """A burst of raw events sorted by source; `refs_moved` if any ref or HEAD file changed;
    `index_written`: the sources whose index (or its lock) changed."""

    files: dict[str, dict[str, set[int]]] = field(default_factory=dict)
    refs_moved: bool = False
    index_written: set[str] = field(default_factory=set)

    def add(self, source: str, relative: str, kind: int) -> None:
        self.files.setdefault(source, {}).setdefault(relative, set()).add(kind)


def is_editor_temp(relative: str) -> bool:
    """True for swap files, backups and temp files editors and agents write before
    renaming them over the real file."""
    name = PurePosixPath(relative).name
    return (any(fnmatch.fnmatchcase(name, pattern) for pattern in EDITOR_TEMP_PATTERNS)
            or AGENT_TEMP.search(name) is not None)


def never_alerts(relative: str) -> bool:
    """Paths no change alert is ever about: git's and bullpen's own, caches, temp files."""
    parts = PurePosixPath(relative).parts
    return (not parts or parts[0] in ALWAYS_SKIPPED_DIRS or "__pycache__" in parts
            or is_editor_temp(relative))


def is_ref_event(git_relative: str) -> bool:
    """Whether a path inside the common git dir can mean a branch moved (a commit)."""
    if git_relative.endswith(".lock"):
        return False
    parts = PurePosixPath(git_relative).parts
    if git_relative in ("HEAD", "packed-refs") or git_relative.startswith("refs/heads/"):
        return True
    # a linked worktree's own HEAD: <common>/worktrees/<id>/HEAD
    return len(parts) == 3 and parts[0] == "worktrees" and parts[2] == "HEAD"


def route(raw: Iterable[tuple[int, str]], targets: Iterable[Target],
          git_common_dir: Path) -> Routed:
    """Sort raw events into per-source repo-relative paths, dropping what never alerts."""
    ordered = sorted(targets, key=lambda t: len(t.root.parts), reverse=True)
    index_of = {t.git_dir: t.source for t in ordered if t.git_dir is not None}
    routed = Routed()
    for kind, raw_path in raw:
        path = Path(raw_path)
        if path.is_relative_to(git_common_dir):
            routed.refs_moved |= is_ref_event(path.relative_to(git_common_dir).as_posix())
            if path.name in (INDEX, INDEX_LOCK) and path.parent in index_of:
                routed.index_written.add(index_of[path.parent])
            continue
        target = next((t for t in ordered if path.is_relative_to(t.root)), None)
        if target is None or path == target.root:
            continue
        relative = path.relative_to(target.root).as_posix()
        if not never_alerts(relative):
            routed.add(target.source, relative, kind)
    return routed


def settled(changes: dict[str, set[int]], root: Path) -> list[str]:
    """The paths that really changed, once the burst is over.

    A file created and gone again within one burst (an editor's temp file before it was
    renamed over the real one) is no change; nor is a directory. A deletion is a change.
    """
    result = []
    for relative, kinds in changes.items():
        absolute = root / relative
        exists = absolute.exists()
        if not exists and ADDED in kinds:
            continue
        if exists and absolute.is_dir():
            continue
        result.append(relative)
    return sorted(result)


def dirty(root: Path, relatives: list[str]) -> set[str]:
    """Those of `relatives` that differ from HEAD in the checkout at `root`.

    One `git status` limited to the paths: modified, added, deleted and untracked files
    count; ignored files never do (so build output is dropped), nor does a file that is
    back to its committed content (a checkout, merge or stash rewrote it to match the new
    HEAD, which the commit report covers). If git fails, every path counts.
    """
    if not relatives:
        return set()
    found = _status(root, relatives)
    return set(relatives) if found is None else found & set(relatives)


def uncommitted(root: Path) -> set[str]:
    """Every file of the checkout at `root` that differs from HEAD (as `dirty` counts
    them; none when git fails)."""
    return _status(root, []) or set()


def _status(root: Path, relatives: list[str]) -> set[str] | None:
    """The paths `git status` lists (limited to `relatives` when given); None if git failed."""
    result = subprocess.run(
        ["git", "--no-optional-locks", "--literal-pathspecs", "status", "--porcelain=v1",
         "-z", "--untracked-files=all", "--", *relatives],
        cwd=root, capture_output=True, check=False)
    if result.returncode != 0:
        return None
    found: set[str] = set()
    entries = iter(result.stdout.decode(errors="surrogateescape").split("\0"))
    for entry in entries:
        if len(entry) < 4:
            continue
        found.add(entry[3:])
        if entry[0] in "RC":  # a staged rename or copy: the original path follows
            found.add(next(entries, ""))
    return found
