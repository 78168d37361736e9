"""What an `rm` does, as far as the floor cares: `refusal(args, cwd)`.

Recursive in any spelling (`-r`, `-R`, `-rf`, `-fr`, `-r -f`, `--recursive`, `--rec`)
on the root or a home directory: `/`, `//`, `/.`, `/bin/..`, `/*`, `/*/*`, `~`, `~/`,
`~/*`, `~user`, `$HOME`, the home directory's own path, or a path that is one of those
once its unknown parts are empty (`"$DIR"/` with DIR unset is `/`); a relative glob or
`.` when the script `cd`-ed to one of those. `--no-preserve-root` is refused on any
target: it exists only to let rm delete `/`.
"""

from __future__ import annotations

import os
import posixpath

from workers.agents.floor.shell_lex import HOME, UNKNOWN

ROOT = "rm -r of /"
OF_HOME = "rm -r of a home directory"
NO_PRESERVE_ROOT = "rm --no-preserve-root"
_LONG = ("recursive", "force", "no-preserve-root", "preserve-root", "interactive",
         "one-file-system", "dir", "verbose", "help", "version")
_GLOB_ONLY = frozenset("*?.")


def refusal(args: tuple[str, ...], cwd: str | None = None) -> str | None:
    """The rule `rm ARGS` breaks (run in `cwd` when the script set it), or None."""
    recursive, options_done = False, False
    targets: list[str] = []
    for word in args:
        if options_done or not word.startswith("-") or word == "-":
            targets.append(word)
        elif word == "--":
            options_done = True
        elif word.startswith("--"):
            name = _long(word[2:].partition("=")[0])
            if name == "no-preserve-root":
                return NO_PRESERVE_ROOT
            recursive = recursive or name == "recursive"
        else:
            recursive = recursive or "r" in word or "R" in word
    if not recursive:
        return None
    for target in targets:
        for reading in {target.replace(UNKNOWN, ""), target}:
            found = _danger(reading, cwd)
            if found:
                return found
    return None


def _long(name: str) -> str:
    matches = [option for option in _LONG if option.startswith(name)] if name else []
    return name if name in _LONG or len(matches) != 1 else matches[0]


def _danger(target: str, cwd: str | None) -> str | None:
    if not target:
        return None
    home = os.path.expanduser("~")
    if target.startswith(HOME):
        head, slash, tail = target.partition("/")
        return OF_HOME if _is_top(posixpath.normpath("/" + tail)) or not slash else None
    if not target.startswith("/"):
        if cwd is None or not _is_top(posixpath.normpath("/" + target)):
            return None
        return _danger(cwd, None)  # `cd / && rm -rf *`
    path = posixpath.normpath("/" + target.lstrip("/"))
    if _is_top(path):
        return ROOT
    if home not in ("", "/") and path.rstrip("/*") == home.rstrip("/"):
        return OF_HOME
    return None


def _is_top(path: str) -> bool:
    """`/`, or a path of nothing but globs under it (`/*`, `/*/*`, `/.*`)."""
    parts = [part for part in path.split("/") if part]
    return all(set(part) <= _GLOB_ONLY and set(part) & set("*?") for part in parts)
