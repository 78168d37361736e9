"""The command a wrapper runs, and the script a shell runs.

`unwrapped(words)` is each form of a simple command from its own first word to the
command that finally runs, wrappers seen through with their options: `sudo -u root -E`,
`doas`, `env -i -u X VAR=v` (and `env -S 'git push -f'`), `nice -n 5`, `timeout -s 9 10`,
`time -p`, `command -p`, `builtin`, `exec -a`, `nohup`, `setsid`, `stdbuf -o0`,
`ionice -c 3`, `chroot DIR`, `flock FILE`, `unbuffer`, `xargs -n 1` (with the words a
pipe from `echo` hands it), `busybox APPLET`. A program is named by its basename
(`/usr/bin/git` is `git`). `shell_script(words)` says what a shell (`bash`, `sh`, `zsh`,
`dash`, `ksh`, `fish` …) runs: the `-c` text (past `-o pipefail` and the like), its
standard input, or a script file bullpen does not read.
"""

from __future__ import annotations

from collections.abc import Iterator

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh",
                    "fish", "rbash", "ksh93", "pdksh", "oksh", "loksh"})
INTERPRETERS = frozenset({"python", "python3", "python2", "perl", "ruby", "node", "nodejs",
                          "php", "lua", "tclsh", "osascript", "pwsh", "deno", "bun"})
SCRIPT_RUNNERS = frozenset({"su", "runuser", "sg", "script", "watch"})  # run a text (-c)
# name: (short options taking a value, long options taking one, words before the command)
_WRAPPERS: dict[str, tuple[str, frozenset[str], int]] = {
    "sudo": ("ugpChDrtUTR", frozenset({"user", "group", "host", "prompt", "close-from",
                                       "chdir", "role", "type", "other-user", "chroot",
                                       "command-timeout", "login-class", "auth-type"}), 0),
    "doas": ("uC", frozenset(), 0),
    "env": ("uCS", frozenset({"unset", "chdir", "split-string"}), 0),
    "nice": ("n", frozenset({"adjustment"}), 0),
    "timeout": ("sk", frozenset({"signal", "kill-after"}), 1),
    "time": ("fo", frozenset({"format", "output"}), 0),
    "command": ("", frozenset(), 0),
    "builtin": ("", frozenset(), 0),
    "exec": ("a", frozenset(), 0),
    "nohup": ("", frozenset(), 0),
    "setsid": ("", frozenset(), 0),
    "unbuffer": ("", frozenset(), 0),
    "stdbuf": ("ioe", frozenset({"input", "output", "error"}), 0),
    "ionice": ("cnpPu", frozenset({"class", "classdata", "pid", "pgid", "uid"}), 0),
    "chroot": ("", frozenset({"userspec", "groups"}), 1),
    "flock": ("wEo", frozenset({"timeout", "conflict-exit-code"}), 1),
    "xargs": ("EILnPsda", frozenset({"arg-file", "delimiter", "eof", "max-args",
                                     "max-procs", "max-chars", "max-lines", "replace",
                                     "process-slot-var"}), 0),
    "busybox": ("", frozenset(), 0),
    "caffeinate": ("t", frozenset(), 0),
}
_SHELL_VALUE_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_FISH_VALUE_OPTIONS = frozenset({"-C", "--init-command", "-d", "--debug", "-o",
                                 "--debug-output", "-f", "--features", "-c", "--command"})


def program(word: str) -> str:
    """A command word's program name: its basename (`/usr/bin/git` is `git`)."""
    return word.rsplit("/", 1)[-1]


def unwrapped(words: tuple[str, ...], piped: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """`words`, then the command each wrapper in it runs, to the innermost (`piped`: the
    words an `echo` piped into it writes, which `xargs` adds)."""
    yield words
    seen = 0
    while words and program(words[0]) in _WRAPPERS and seen < 16:
        seen += 1
        name = program(words[0])
        short, long, positional = _WRAPPERS[name]
        if name == "env":
            words = _env(words)
        else:
            start = 1 if name == "busybox" else _past_options(words, 1, short, long)
            while name in ("sudo", "doas") and start < len(words) and "=" in words[start] \
                    and not words[start].startswith("="):
                start += 1
            words = words[start + positional:]
            if name == "xargs" and words:
                words = (*words, *piped)
        if not words:
            return
        yield words


def assignments(words: tuple[str, ...]) -> list[str]:
    """The `NAME=value` words a wrapper (`env`, `sudo`) gives the command it runs."""
    return [word for word in words[1:] if "=" in word and not word.startswith("-")
            and word.partition("=")[0].replace("_", "a").isalnum()]


def _past_options(words: tuple[str, ...], index: int, short: str,
                  long: frozenset[str]) -> int:
    while index < len(words):
        word = words[index]
        if word == "--":
            return index + 1
        if word.startswith("--"):
            name, equals, _ = word[2:].partition("=")
            index += 2 if name in long and not equals else 1
            continue
        if word.startswith("-") and len(word) > 1:
            for position, letter in enumerate(word[1:], start=1):
                if letter in short:
                    index += 1 if position < len(word) - 1 else 2
                    break
            else:
                index += 1
            continue
        return index
    return index


def _env(words: tuple[str, ...]) -> tuple[str, ...]:
    """The command `env …` runs; `-S STRING` splits STRING into words, as env does."""
    index = 1
    while index < len(words):
        word = words[index]
        if word in ("-S", "--split-string") or word.startswith(("-S", "--split-string=")):
            text = words[index + 1] if word in ("-S", "--split-string") else \
                word.split("=", 1)[1] if word.startswith("--") else word[2:]
            rest = words[index + (2 if word in ("-S", "--split-string") else 1):]
            return (*_split_string(text), *rest)
        if word == "--":
            return words[index + 1:]
        if word.startswith("-") or ("=" in word and not word.startswith("=")):
            takes = word in ("-u", "-C", "--unset", "--chdir")
            index += 2 if takes else 1
            continue
        return words[index:]
    return ()


def _split_string(text: str) -> tuple[str, ...]:
    from workers.agents.floor.shell_parse import parse

    commands = parse(text)
    return commands[0].words if commands else ()


def shell_script(words: tuple[str, ...]) -> tuple[str, str]:
    """What the shell `words` runs: ("text", SCRIPT) for `-c SCRIPT`, ("stdin", "") when
    it reads its standard input, ("file", PATH) for a script file."""
    fish = program(words[0]) == "fish"
    values = _FISH_VALUE_OPTIONS if fish else _SHELL_VALUE_OPTIONS
    command = False
    index = 1
    while index < len(words):
        word = words[index]
        if word == "--" or word == "-":
            index += 1
            break
        if fish and word.startswith(("--command=", "--init-command=")):
            return "text", word.split("=", 1)[1]
        if fish and word in ("-c", "--command", "-C", "--init-command"):
            return "text", words[index + 1] if index + 1 < len(words) else ""
        if word in values:
            index += 2
            continue
        if word[:1] in "-+" and len(word) > 1:
            if not word.startswith("--") and "c" in word[1:]:
                command = True
            if not word.startswith("--") and "s" in word[1:]:
                return "stdin", ""
            index += 1
            continue
        break
    if index >= len(words):
        return ("text", "") if command else ("stdin", "")
    return ("text", words[index]) if command else ("file", words[index])


def runner_script(words: tuple[str, ...]) -> str | None:
    """The text `su -c TEXT`, `script -c TEXT` or `watch … TEXT` runs, else None."""
    name = program(words[0])
    if name == "watch":
        index = _past_options(words, 1, "nqd", frozenset({"interval", "differences"}))
        return " ".join(words[index:]) or None
    for index, word in enumerate(words[1:-1], start=1):
        if word in ("-c", "--command", "--session-command"):
            return words[index + 1]
        if word.startswith("--command="):
            return word.split("=", 1)[1]
    return None


def interpreter_code(words: tuple[str, ...]) -> str | None:
    """The code `python -c CODE`, `perl -e CODE`, `node -e CODE` … runs, else None."""
    for index, word in enumerate(words[1:-1], start=1):
        if word in ("-c", "-e", "-E", "--eval", "-p", "--print", "-r") or \
                (word.startswith("-") and not word.startswith("--") and word[-1] in "ce"):
            return words[index + 1]
    return None
