"""Writing a checkout's edited files into a tree without a git process (the radar's fast path).

The conflict radar knows which files a change touched (the watcher says). Re-reading a
10,000-file checkout through an index for each of them costs several git processes and
two passes over the whole index; here the edited files' blobs, the trees above them and
a snapshot commit are written into the object database in-process (GitPython's gitdb),
starting from the previous snapshot's tree. Nothing but new objects is written.

Not for repositories whose attributes or config rewrite content on the way in (`.gitattributes`
filters or eol rules, `core.autocrlf`): `TreeEditor.usable` is False there and callers
take git's own path (`worktrees.predict.snapshot`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from io import BytesIO
from pathlib import Path
from typing import Literal

import git
from gitdb import GitDB, IStream

TREE, BLOB, EXECUTABLE, LINK = 0o40000, 0o100644, 0o100755, 0o120000
_IDENTITY = b"bullpen radar <radar@bullpen.invalid> 0 +0000"  # as predict.snapshot's

Change = tuple[int, bytes] | None  # (mode, content), or None for a deleted file


class TreeEditor:
    """In-process tree edits on the repository whose main checkout is `root`."""

    def __init__(self, root: Path | str) -> None:
        self.repo = git.Repo(root)
        # gitdb in pure Python: no `git cat-file` process per object read or written
        self.odb = GitDB(str(Path(self.repo.common_dir) / "objects"))
        reader = self.repo.config_reader()
        autocrlf = reader.get_value("core", "autocrlf", "false")
        self.usable = str(autocrlf).lower() == "false" and not any(
            Path(path).exists() for path in (Path(root) / ".gitattributes",
                                             Path(self.repo.git_dir) / "info" / "attributes"))

    def close(self) -> None:
        self.repo.close()

    def branch_head(self, branch: str) -> str | None:
        """`refs/heads/<branch>` read as git stores it (its loose ref file, else its line
        in packed-refs): a file read, where asking the object database cost a round trip
        to a `git cat-file` process."""
        common = Path(self.repo.common_dir)
        try:
            loose = (common / "refs" / "heads" / branch).read_text().strip()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            loose = ""
        except OSError:
            return None
        if len(loose) in (40, 64) and all(c in "0123456789abcdef" for c in loose):
            return loose
        try:
            packed = (common / "packed-refs").read_text()
        except OSError:
            return None
        wanted = f" refs/heads/{branch}"
        for line in packed.splitlines():
            if line.endswith(wanted) and not line.startswith(("#", "^")):
                return line.split(" ", 1)[0]
        return None

    def tree_of(self, commit: str) -> str:
        return self.repo.commit(commit).tree.hexsha

    def edit(self, worktree: Path, tree: str, paths: Iterable[str]) -> str | None:
        """The tree `tree` with `paths` as they are now in `worktree` (None: a path is a
        directory, a submodule or unreadable; use git's path)."""
        changes: dict[str, Change] = {}
        for path in paths:
            found = _read(worktree / path)
            if found is False:
                return None
            changes[path] = found
        if not self.usable or any(".gitattributes" in p for p in changes):
            return None
        nested: dict = {}
        for path, change in changes.items():
            parts = path.split("/")
            place = nested
            for part in parts[:-1]:
                place = place.setdefault(part.encode(), {})
                if not isinstance(place, dict):
                    return None  # a file and a directory of one name in one change
            place[parts[-1].encode()] = change
        return self._apply(bytes.fromhex(tree), nested).hex()

    def commit(self, tree: str, parent: str) -> str:
        """A snapshot commit of `tree` on `parent` (fixed identity and date)."""
        body = (f"tree {tree}\nparent {parent}\n".encode() + b"author " + _IDENTITY
                + b"\ncommitter " + _IDENTITY + b"\n\nbullpen radar snapshot\n")
        return self._store(b"commit", body).hex()

    def _apply(self, tree: bytes | None, changes: dict) -> bytes:
        entries = _entries(self.odb.stream(tree).read()) if tree is not None else {}
        for name, change in changes.items():
            if isinstance(change, dict):
                old = entries.get(name)
                sub = self._apply(old[0] if old and old[1] == TREE else None, change)
                if sub == self._empty():
                    entries.pop(name, None)
                else:
                    entries[name] = (sub, TREE)
            elif change is None:
                entries.pop(name, None)
            else:
                mode, content = change
                entries[name] = (self._store(b"blob", content), mode)
        # git's order: by name, a tree's name as if it ended in "/"
        ordered = sorted(entries.items(),
                         key=lambda item: item[0] + (b"/" if item[1][1] == TREE else b""))
        data = b"".join(b"%o %s\0%s" % (mode, name, sha) for name, (sha, mode) in ordered)
        return self._store(b"tree", data)

    def _empty(self) -> bytes:
        return bytes.fromhex("4b825dc642cb6eb9a060e54bf8d69288fbee4904")

    def _store(self, kind: bytes, data: bytes) -> bytes:
        return self.odb.store(IStream(kind, len(data), BytesIO(data))).binsha


def _read(path: Path) -> Change | Literal[False]:
    """(mode, content) of a file as git would store it, None if gone, False if not a file."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError:
        return False
    if stat.S_ISLNK(info.st_mode):
        return LINK, os.fsencode(os.readlink(path))
    if not stat.S_ISREG(info.st_mode):
        return False
    try:
        content = path.read_bytes()
    except OSError:
        return False
    return (EXECUTABLE if info.st_mode & 0o100 else BLOB), content


def _entries(data: bytes) -> dict[bytes, tuple[bytes, int]]:
    """A tree object's entries: name -> (binary sha, mode)."""
    entries, offset = {}, 0
    while offset < len(data):
        space = data.index(b" ", offset)
        nul = data.index(b"\0", space)
        entries[data[space + 1:nul]] = (data[nul + 1:nul + 21], int(data[offset:space], 8))
        offset = nul + 21
    return entries
