"""Files a shell command reads, from its text (best effort): Claude Code has no Grep tool
in 2.1.x and reads through Bash (`cat`, `head`, `tail`, `less`, `grep`, `rg`, `sed -n`).

Only the simple forms are understood: each pipeline or list segment whose program is a
known reader; its file arguments (options and their values skipped, the pattern or sed
script dropped). Whether a path exists and lies inside the worktree is the caller's check.
"""

from __future__ import annotations

import shlex

READERS = frozenset({"cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg",
                     "sed", "bat", "nl", "wc"})
# Options whose value is the next word, per reader.
_VALUED = {
    "head": {"-n", "-c"}, "tail": {"-n", "-c"},
    "grep": {"-e", "-f", "-m", "-A", "-B", "-C", "--include", "--exclude"},
    "rg": {"-e", "-f", "-g", "-t", "-T", "-m", "-A", "-B", "-C", "--glob", "--type"},
    "sed": {"-e", "-f"},
}
_PATTERN_FIRST = frozenset({"grep", "egrep", "fgrep", "rg", "sed"})  # unless -e/-f given
_SEPARATORS = frozenset({"|", "||", "&&", ";", "&", "|&"})


def _segments(command: str) -> list[list[str]]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    segments: list[list[str]] = [[]]
    for word in lexer:
        if word in _SEPARATORS:
            segments.append([])
        elif word.startswith((">", "<")) or word in ("(", ")"):
            segments[-1].append("\0")  # a redirection: its target is not a read
        else:
            segments[-1].append(word)
    return [segment for segment in segments if segment]


def _files_of(program: str, args: list[str]) -> list[str]:
    valued = _VALUED.get("grep" if program in ("egrep", "fgrep") else program, set())
    positional: list[str] = []
    pattern_given = False
    skip = False
    for word in args:
        if skip:
            skip = False
            continue
        if word == "\0":  # drop the redirection target too
            skip = True
            continue
        if word.startswith("-") and word != "-":
            name = word.split("=", 1)[0]
            if name in ("-e", "-f", "--regexp", "--file"):
                pattern_given = True
            if name in valued and "=" not in word and len(word) == len(name):
                skip = True
            continue
        positional.append(word)
    if program in _PATTERN_FIRST and not pattern_given and positional:
        positional = positional[1:]
    return positional


def read_paths(command: str) -> list[str]:
    """The file arguments of the reader programs in `command` (paths as written)."""
    try:
        segments = _segments(command)
    except ValueError:
        return []
    found: list[str] = []
    for segment in segments:
        program = segment[0].rsplit("/", 1)[-1]
        if program in READERS:
            found.extend(path for path in _files_of(program, segment[1:]) if path not in found)
    return found
