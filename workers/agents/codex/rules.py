"""The room's command policy as Codex execpolicy rules: `prefix_rule(…, decision="forbidden")`.

Codex (0.171.0, seen working) loads `.rules` files from `.codex/rules/` of each project
layer between the project root and its working directory, in a trusted project, and
refuses a forbidden command before it runs — each command of a `bash -lc` chain too —
telling the model "rejected: <justification>". The project root is the nearest
directory holding one of `project_root_markers` (default `.git`: the worktree itself).
A launch passes `-c project_root_markers=[ROOT_MARKER]` and marks the worktrees'
directory (`.bullpen/worktrees/`) with that file, so the rules live in
`.bullpen/worktrees/.codex/rules/bullpen.rules`: outside every worktree and the user's
Codex home, for every Codex session of the room. (So the worktree's own `.git` no
longer marks the root; the worktree's `.codex/` is still a layer.)

A prefix rule is a run of exact words from the command's start, so only patterns of
literal words ending in `*` (or in a word ending in `*`, read as that word exactly) or
of literal words alone translate; bullpen's floor has rules of its own. Every other
pattern is listed in the file as not enforced, and `untranslated` names them. Codex's
words are case-sensitive and it keeps its refusals to itself: bullpen's audit does not
see them (they are in Codex's session files).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

ROOT_MARKER = ".bullpen-codex-root"
RULES_FILE = "bullpen.rules"
GLOB = set("*?[")
FORCE = ["--force", "--force-with-lease", "--force-if-includes"]
# The floor's patterns that are not plain prefixes, as the prefixes they hold.
FLOOR_RULES: dict[str, list[list[str | list[str]]]] = {
    "git push *--force*": [["git", "push", FORCE]],
    "git push * -f*": [],  # the `-f` after a remote name cannot be a prefix
    "rm -rf /[*]": [["rm", "-rf", "/*"]],
}


def prefixes(pattern: str) -> list[list[str | list[str]]] | None:
    """The prefix rules holding `pattern`, or None when Codex's rules cannot say it."""
    if pattern in FLOOR_RULES:
        return FLOOR_RULES[pattern] or None
    words = pattern.split()
    tokens: list[str | list[str]] = []
    for index, word in enumerate(words):
        if not GLOB & set(word):
            tokens.append(word)
            continue
        rest = words[index + 1:]
        if rest or GLOB & set(word[:-1]) or not word.endswith("*"):
            return None  # a glob inside: a prefix would deny more than the pattern
        if word != "*":
            tokens.append(word[:-1])
        break
    return [tokens] if tokens else None


def rules_text(patterns: Iterable[str]) -> str:
    """The `.rules` file for `patterns` (Starlark)."""
    lines = ["# Written by bullpen at each Codex launch from the room's policy (floor and",
             "# bullpen.yaml deny:). Edit bullpen.yaml, not this file."]
    for pattern in patterns:
        rules = prefixes(pattern)
        if rules is None:
            lines.append(f"# not enforced in Codex (not a prefix): {pattern}")
            continue
        reason = json.dumps(f"bullpen room policy: the room denies {pattern!r}")
        lines += [f"prefix_rule(pattern={json.dumps(rule)}, decision=\"forbidden\","
                  f" justification={reason})" for rule in rules]
    return "\n".join(lines) + "\n"


def untranslated(patterns: Iterable[str]) -> list[str]:
    """The patterns Codex's rules cannot hold."""
    return [pattern for pattern in patterns if prefixes(pattern) is None]


def write_rules(worktree: Path, patterns: Iterable[str]) -> Path:
    """Write the room's rules beside `worktree` (in its parent, the worktrees' directory)
    and the root marker that makes Codex read them; returns the rules file."""
    top = worktree.parent
    folder = top / ".codex" / "rules"
    folder.mkdir(parents=True, exist_ok=True)
    (top / ROOT_MARKER).touch()
    path = folder / RULES_FILE
    staged = path.with_name(f".{RULES_FILE}.tmp")
    staged.write_text(rules_text(patterns))
    staged.replace(path)  # another session's Codex may be reading it
    return path


def markers_override() -> str:
    """The `-c` value that makes the worktrees' directory Codex's project root."""
    return f"project_root_markers={json.dumps([ROOT_MARKER])}"
