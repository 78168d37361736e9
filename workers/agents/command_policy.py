"""The room's command policy: glob patterns of shell commands no agent may run.

The list is bullpen's small floor (`FLOOR`) plus the room's `deny:` (bullpen.yaml). A
command is denied when a pattern matches, as a whole (`fnmatch`: `*` is any text, `?`
one character, `[…]` a class; case-insensitive, as Hermes matches its own list):

- the whole command, its runs of whitespace made one space;
- or any one of its simple commands: the command split at `;`, `&`, `&&`, `||`, `|`,
  newlines, `(`, `)`, `{`, `}` and `$(`/backticks outside quotes, each with its quotes
  removed (`git push "--force"` is `git push --force`) and its leading `VAR=value`,
  `sudo`, `env`, `command`, `exec`, `nohup` and `time` words dropped;
- or, for `bash -c 'SCRIPT'` (also `sh`, `zsh`, `dash`, `ksh`, `-lc`, `-ec` …), any of
  the above of SCRIPT, three wrappers deep.

It is a floor against mistakes, not a sandbox: a script file, an alias, `eval`,
variables (`$CMD`) or a program that runs git itself are not seen.

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

# Never, whoever asks: rewriting the history other sessions and the base build on, and
# deleting the machine's root or the home directory. `deny:` adds to these; it cannot
# take them away.
FLOOR = ("git push *--force*", "git push -f*", "git push * -f*",
         "rm -rf /", "rm -rf /[*]", "rm -fr /", "rm -rf ~", "rm -rf ~/")
DENY = "deny"  # agent_files key: the session's patterns, as launched
COMMAND_CHARS = 200  # how much of a denied command the audit and the reason keep
MAX_DEPTH = 3  # `bash -c` inside `bash -c` …
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
WRAPPERS = frozenset({"sudo", "env", "command", "exec", "nohup", "time"})
_SEPARATORS = ";&|\n(){}`"


@record(frozen=True)
class Denial:
    """One command the policy refuses, and the pattern that refused it."""

    command: str
    pattern: str

    @property
    def shown(self) -> str:
        """The command on one line, cut to `COMMAND_CHARS`."""
        flat = " ".join(self.command.split())
        return flat if len(flat) <= COMMAND_CHARS else flat[:COMMAND_CHARS - 1] + "…"

    def reason(self) -> str:
        """What the agent is told."""
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
    """The first pattern of `deny` that refuses `command`, or None."""
    globs = [(pattern, " ".join(pattern.split()).lower()) for pattern in deny]
    for candidate in candidates(command):
        lowered = candidate.lower()
        for pattern, glob in globs:
            if glob and fnmatch.fnmatchcase(lowered, glob):
                return Denial(command, pattern)
    return None


def candidates(command: str, depth: int = 0) -> Iterator[str]:
    """The texts a command is matched as: itself, then each simple command in it."""
    yield " ".join(command.split())
    for part in _split(command):
        words = _words(part)
        while words and (words[0] in WRAPPERS or _is_assignment(words[0])):
            words = words[1:]
        if not words:
            continue
        yield " ".join(words)
        script = _shell_script(words)
        if script is not None and depth < MAX_DEPTH:
            yield from candidates(script, depth + 1)


def _split(command: str) -> list[str]:
    """The command cut at its separators outside quotes (`$(` opens a part, too)."""
    parts, current, quote, escaped = [], [], "", False
    for char in command:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\" and quote != "'":
            current.append(char)
            escaped = True
        elif quote:
            current.append(char)
            if char == quote:
                quote = ""
        elif char in "'\"":
            current.append(char)
            quote = char
        elif char in _SEPARATORS:
            if current and current[-1] == "$" and char == "(":
                current.pop()
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [part.strip() for part in parts if part.strip()]


def _words(part: str) -> list[str]:
    import shlex  # here: a hook call with no command to read never needs it

    try:
        return shlex.split(part)
    except ValueError:  # an unclosed quote: the words as they stand
        return part.split()


def _is_assignment(word: str) -> bool:
    name, equals, _ = word.partition("=")
    return bool(equals) and name.replace("_", "a").isalnum() and not name[0].isdigit()


def _shell_script(words: list[str]) -> str | None:
    """SCRIPT of `bash -c SCRIPT` (or `-lc`, `-ec`, `-xc` …), else None."""
    if Path(words[0]).name not in SHELLS:
        return None
    for index, word in enumerate(words[1:-1], start=1):
        if word.startswith("-") and not word.startswith("--") and "c" in word:
            return words[index + 1]
        if not word.startswith("-"):
            return None  # `bash script.sh -c`: a script file, not a command text
    return None


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
