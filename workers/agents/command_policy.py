"""The room's command policy: bullpen's floor, and glob patterns of shell commands.

A command is read as bash reads it (`workers.agents.floor`: compound commands,
keywords, `!`, redirections anywhere, heredocs and here-strings, `$'…'`, line
continuations, variables the command set, `$(…)`, and the scripts handed to a shell at
any depth: `bash -o pipefail -c`, `sh <<EOF`, `echo … | bash`, `eval`, `fish -c`,
`busybox sh -c`), and each simple command is seen through its wrappers (`sudo -u X`,
`env -i`, `nice -n`, `timeout N`, `time -p`, `command -p`, `nohup`, `xargs` …).

The floor (`floor.judge.RULES`) judges each by meaning and no room can take it away: a forced
or deleting push (`git_meaning`), a push with `--no-verify` and a `core.hooksPath` on
the command line (both would unseat the pre-push guard, worktrees/push_guard.py), and
`rm -r` of the root or a home directory (`rm_meaning`). Text the reader cannot follow is
refused when it mentions git push, rm -r or the hooks. A refusal names its rule in
words ("floor: a forced push").

`FLOOR` is the floor as glob patterns, for the agents that match patterns themselves
(Hermes' `approvals.deny`, Codex's prefix rules); bullpen's own check does not match
them, it judges. The room's `deny:` patterns are globs (`fnmatch`: `*` any text, `?` one
character, `[…]` a class; case-insensitive, as Hermes matches its own list) matched
against the whole command (runs of whitespace made one space) and against each simple
command the reader finds, in each of its wrapped forms (`sudo npm publish` and `npm
publish`), its words joined by one space with quotes removed.

It is a floor, not a sandbox: a script file, a program that runs git itself, or a
value known only when the command runs (`git push $FLAGS`) are not seen here; the
pre-push guard holds for pushes anyway.

Each launch stores its session's patterns in `.bullpen/agents/<session>/deny` (JSON),
where the session's hooks read them. Stdlib only: the hook process imports this.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from board.records import record
from workers.agents import agent_files
from workers.agents.floor.shell_lex import UNKNOWN

# Never, whoever asks: rewriting the history other sessions and the base build on, and
# deleting the machine's root or the home directory. `deny:` adds to these; it cannot
# take them away. As globs for the agents that match globs themselves (Hermes, Codex).
FLOOR = ("git push *--force*", "git push -f*", "git push * -f*",
         "rm -rf /", "rm -rf /[*]", "rm -fr /", "rm -rf ~", "rm -rf ~/")
FLOOR_PREFIX = "floor: "  # a Denial's pattern when the floor's own rule refused it
DENY = "deny"  # agent_files key: the session's patterns, as launched
COMMAND_CHARS = 200  # how much of a denied command the audit and the reason keep


@record(frozen=True)
class Denial:
    """One command the policy refuses, and the pattern (or floor rule) that refused it."""

    command: str
    pattern: str

    @property
    def shown(self) -> str:
        """The command on one line, cut to `COMMAND_CHARS`."""
        flat = " ".join(self.command.split())
        return flat if len(flat) <= COMMAND_CHARS else flat[:COMMAND_CHARS - 1] + "…"

    @property
    def by_floor(self) -> bool:
        """Refused by bullpen's floor rather than by one of the room's patterns?"""
        return self.pattern.startswith(FLOOR_PREFIX)

    def reason(self) -> str:
        """What the agent is told."""
        if self.by_floor:
            return (f"bullpen's floor refuses this command: it is"
                    f" {self.pattern.removeprefix(FLOOR_PREFIX)}, which no session in any"
                    f" room may run. Do not retry it or rephrase it (a script or another"
                    f" spelling is refused too, and the worktree's pre-push hook refuses"
                    f" a non-fast-forward push); ask the human if it is really needed.")
        return (f"bullpen room policy: this command matches the deny pattern"
                f" {self.pattern!r} and may not run in this room. Do not retry it or"
                f" rephrase it; ask the human if it is really needed.")


def patterns(room: Iterable[str] = ()) -> tuple[str, ...]:
    """The floor, then the room's own patterns (whitespace made one space, each once)."""
    found: list[str] = []
    for pattern in (*FLOOR, *room):
        flat = " ".join(pattern.split())
        if flat and flat not in found:
            found.append(flat)
    return tuple(found)


def check(command: str, deny: Iterable[str]) -> Denial | None:
    """Why `command` may not run: the floor's rule it breaks (always judged), else the
    first pattern of `deny` that matches it; None when it may run."""
    from workers.agents.floor import judge  # here: most hook calls have no command

    rule = judge.refusal(command)
    if rule is not None:
        return Denial(command, FLOOR_PREFIX + rule)
    globs = [(pattern, " ".join(pattern.split()).lower()) for pattern in deny
             if pattern not in FLOOR]
    if not globs:
        return None
    for candidate in candidates(command):
        lowered = candidate.lower()
        for pattern, glob in globs:
            if glob and fnmatch.fnmatchcase(lowered, glob):
                return Denial(command, pattern)
    return None


def candidates(command: str) -> Iterator[str]:
    """The texts a room pattern is matched against: the whole command, then each simple
    command the reader finds in it, in each wrapped form (`sudo x`, then `x`)."""
    from workers.agents.floor import judge

    yield " ".join(command.split())
    for step in judge.steps(command):
        if step.unreadable:
            yield " ".join(step.unreadable.split())
        for form in step.forms:
            yield " ".join(form).replace(UNKNOWN, "")


def store(home: Path, session: str, deny: Iterable[str]) -> None:
    """Keep the patterns a session was launched with, for its hooks."""
    agent_files.write_value(home, session, DENY, json.dumps(list(deny)))


def stored(home: Path, session: str) -> tuple[str, ...]:
    """The patterns a session was launched with (the floor when none were kept)."""
    value = agent_files.read_value(home, session, DENY)
    try:
        found = json.loads(value) if value else None
    except ValueError:
        found = None
    if not isinstance(found, list):
        return FLOOR
    return patterns(item for item in found if isinstance(item, str))
