"""An agent command line read as words: the wrappers, the real program, its own words.

Wrappers are looked through: `env X=1 claude`, `IS_SANDBOX=1 claude`, `/opt/bin/claude`,
`npx @anthropic-ai/claude-code`, `exec hermes`, `nice -n 5 aider`, `uvx --from
hermes-agent hermes`. The registry (`kinds`) names the kind from the program; a kind's
launch adds bullpen's flags after the program's own words (`with_flags`), never after a
wrapper's, so `IS_SANDBOX=1 claude --dangerously-skip-permissions` keeps its words first.
Stdlib only.
"""

from __future__ import annotations

from pathlib import PurePath

from board.records import record

# Programs that run the next word as the real command (their own options skipped).
_WRAPPERS = frozenset({"env", "exec", "nice", "nohup", "command", "stdbuf", "time",
                       "npx", "bunx", "pnpx", "uvx", "pipx", "setsid", "ionice"})
# Options of those wrappers that take a value as the next word.
_VALUED = frozenset({"-n", "-u", "-C", "--chdir", "-S", "-o", "-e", "-i", "-c",
                     "--package", "-p", "--from", "--spec"})
_OPERATORS = set("();<>|&")


@record(frozen=True)
class CommandLine:
    """A command's words split at its real program: `wrappers` (VAR=value words, env,
    npx … with their options), `program` (the word that names the agent, as written)
    and `own` (the program's own arguments)."""

    wrappers: tuple[str, ...]
    program: str
    own: tuple[str, ...]


def is_assignment(word: str) -> bool:
    """`VAR=value` (a shell assignment, or one of env's)."""
    return "=" in word and not word.startswith("-") and word.split("=", 1)[0].isidentifier()


def split_command(command: str | None) -> CommandLine | None:
    """The command's wrappers, program and own words; None for an empty or unparsable
    command, or one with no program after its wrappers."""
    import shlex  # here: an agent's hook process reads no command line

    try:
        words = shlex.split(command or "")
    except ValueError:
        return None
    index = 0
    while index < len(words):
        word = words[index]
        name = PurePath(word).name
        if is_assignment(word):
            index += 1  # VAR=value before the program (or after `env`)
        elif name in _WRAPPERS or (name == "run" and index > 0):
            index += 1
        elif word.startswith("-") and index > 0:
            index += 2 if word in _VALUED else 1
        elif word.isdigit() and index > 0:
            index += 1  # `nice 5 …`
        else:
            return CommandLine(tuple(words[:index]), word, tuple(words[index + 1:]))
    return None


def _words(command: str) -> list[str] | None:
    import shlex

    try:
        return list(shlex.shlex(command, posix=True, punctuation_chars=True))
    except ValueError:
        return None


def takes_flags(command: str) -> bool:
    """One program with arguments, maybe after wrappers: bullpen's flags can be added.
    Not a pipeline, a list or a redirection (the flags would land on the wrong program)."""
    words = _words(command)
    return bool(words) and not any(set(word) <= _OPERATORS for word in words or ())


def is_simple(command: str) -> bool:
    """A program and its arguments: no shell operators, no leading VAR=value."""
    words = _words(command) or []
    return bool(words) and "=" not in words[0] and words[0] != "exec" and not any(
        set(word) <= _OPERATORS for word in words)


def with_flags(command: str, flags: list[str]) -> str:
    """`command` with `flags` after the program's own words: at the end, or before a
    `--` that ends the program's options (what follows it is not an option). The text
    the user wrote is kept as written (`$HOME`, quotes)."""
    import shlex

    line = split_command(command)
    added = shlex.join(flags)
    if line is not None and "--" in line.own:
        before, marker, after = command.partition(" -- ")
        words = shlex.split(before) if marker else []
        if words == [*line.wrappers, line.program, *line.own[:line.own.index("--")]]:
            return f"{before} {added} -- {after}"
    return f"{command} {added}"
