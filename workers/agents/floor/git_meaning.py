"""What a git invocation does, as far as the floor cares: `refusal(words, judge)`.

git is `git` by basename after its global options (`-C DIR`, `-c KEY=VALUE`,
`--git-dir`, `--work-tree`, `--namespace`, `--config-env`, `--exec-path`, `--no-pager`,
`-p`, `-P`, `--bare` …), or `git-push`/`git-send-pack` themselves. A push is forced by
`--force`, `--force-with-lease`, `--force-if-includes`, `--mirror` (any abbreviation git
accepts), a grouped short flag holding `f` (`-uf`), a `+refspec`, or `-c
remote.X.push=+…`/`remote.X.mirror`; it deletes with `--delete`, `-d`, `--prune` or
`:ref`; it skips the hooks with `--no-verify`. `core.hooksPath` given on the command
line or written with `git config` would unseat the pre-push guard. A `-c alias.X=…`
used by the same command is read for what it runs (`!…` as a shell script, by `judge`).
"""

from __future__ import annotations

from collections.abc import Callable

from workers.agents.floor.shell_lex import UNKNOWN
from workers.agents.floor.wrappers import program

FORCED = "a forced push"
DELETING = "a push that deletes a remote branch"
NO_VERIFY = "a push that skips the hooks (--no-verify)"
HOOKS_PATH = "a change of git's hooks path (core.hooksPath)"
_GLOBAL_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace",
                           "--config-env", "--super-prefix", "--attr-source", "--exec-path"})
_PUSH_LONG = ("all", "branches", "mirror", "delete", "tags", "dry-run", "porcelain",
              "force", "force-with-lease", "force-if-includes", "repo", "set-upstream",
              "thin", "no-thin", "quiet", "verbose", "progress", "no-progress",
              "receive-pack", "exec", "prune", "no-verify", "verify", "follow-tags",
              "no-follow-tags", "signed", "no-signed", "atomic", "no-atomic", "push-option",
              "ipv4", "ipv6", "recurse-submodules", "no-recurse-submodules",
              "no-force-with-lease", "no-force-if-includes")
_PUSH_VALUE = frozenset({"repo", "receive-pack", "exec", "push-option"})
_PUSH_BAD = {"force": FORCED, "force-with-lease": FORCED, "force-if-includes": FORCED,
             "mirror": FORCED, "delete": DELETING, "prune": DELETING, "no-verify": NO_VERIFY}
_CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--list", "-l", "get",
                           "list", "--show-origin", "--get-urlmatch"})
MAX_ALIASES = 8

Judge = Callable[[str], "str | None"]


def is_git(words: tuple[str, ...]) -> bool:
    """A git invocation (by basename: `git`, `/usr/bin/git`, `git-push`)?"""
    name = program(words[0]) if words else ""
    return name == "git" or name in ("git-push", "git-send-pack", "git-config")


def refusal(words: tuple[str, ...], judge: Judge, aliases: int = 0) -> str | None:
    """The floor's rule this git invocation breaks, or None; `judge` reads a script."""
    name = program(words[0])
    configs, rest = _split_global(words) if name == "git" else \
        ([], (name.removeprefix("git-"), *words[1:]))
    for config in configs:
        key, _, value = config.partition("=")
        key = key.lower()
        if key == "core.hookspath":
            return HOOKS_PATH
        if rest and key == f"alias.{rest[0].lower()}" and aliases < MAX_ALIASES:
            if value.startswith("!"):
                return judge(value[1:] + " " + " ".join(rest[1:]))
            return refusal(("git", *value.split(), *rest[1:]), judge, aliases + 1)
        if rest and rest[0] == "push" and key.startswith("remote."):
            if key.endswith(".push") and value.startswith("+"):
                return FORCED
            if key.endswith(".mirror") and value.lower() in ("", "true", "yes", "on", "1"):
                return FORCED
    if not rest:
        return None
    if rest[0] in ("push", "send-pack"):
        return push_refusal(rest[1:])
    if rest[0] == "config":
        return _config_refusal(rest[1:], judge)
    return None


def _split_global(words: tuple[str, ...]) -> tuple[list[str], tuple[str, ...]]:
    """git's `-c` settings (and `--config-env`'s names) and the words after its global
    options."""
    configs: list[str] = []
    index = 1
    while index < len(words):
        word = words[index]
        if word in _GLOBAL_VALUE:
            if word == "--exec-path":  # alone, it prints the path: no value
                index += 1
                continue
            value = words[index + 1] if index + 1 < len(words) else ""
            if word in ("-c", "--config-env"):
                configs.append(value)
            index += 2
        elif word.startswith("--") and "=" in word:
            option, _, value = word.partition("=")
            if option == "--config-env":
                configs.append(value)
            index += 1
        elif word.startswith("-") and len(word) > 1:
            if word.startswith("-c") and "=" in word:  # `-ckey=value`
                configs.append(word[2:])
            index += 1
        else:
            break
    return configs, words[index:]


def push_refusal(args: tuple[str, ...]) -> str | None:
    """What a `git push ARGS` breaks: forced, deleting, skipping the hooks, or None."""
    index, options_done = 0, False
    positional: list[str] = []
    while index < len(args):
        word = args[index]
        index += 1
        if options_done or not word.startswith("-") or word == "-":
            positional.append(word)
        elif word == "--":
            options_done = True
        elif word.startswith("--"):
            name, equals, _ = word[2:].partition("=")
            bad = _bad_long(name.lower())
            if bad:
                return bad
            if _long_name(name) in _PUSH_VALUE and not equals:
                index += 1
        else:
            for position, letter in enumerate(word[1:], start=1):
                if letter == "f":
                    return FORCED
                if letter == "d":
                    return DELETING
                if letter == "o":  # -o VALUE (attached or next)
                    index += 1 if position == len(word) - 1 else 0
                    break
    for refspec in positional:
        spec = refspec.replace(UNKNOWN, "")
        if spec.startswith("+"):
            return FORCED
        if spec.startswith(":") and len(spec) > 1:
            return DELETING
    return None


def _bad_long(name: str) -> str | None:
    """The rule a long push option breaks, its abbreviations too (`--forc`, `--mirr`)."""
    if name in _PUSH_BAD:
        return _PUSH_BAD[name]
    if name in _PUSH_LONG or len(name) < 3:
        return None
    for option, rule in _PUSH_BAD.items():
        if option.startswith(name):
            return rule
    return None


def _long_name(name: str) -> str:
    matches = [option for option in _PUSH_LONG if option.startswith(name)]
    return name if name in _PUSH_LONG or len(matches) != 1 else matches[0]


def _config_refusal(args: tuple[str, ...], judge: Judge) -> str | None:
    """`git config` that sets core.hooksPath, or an alias or remote that force-pushes."""
    lowered = [arg.lower() for arg in args]
    if any(arg in _CONFIG_READS for arg in lowered):
        return None
    if any("hookspath" in arg for arg in lowered):
        return HOOKS_PATH
    names = [arg for arg in args if not arg.startswith("-")]
    for index, key in enumerate(names[:-1]):
        key, value = key.lower(), names[index + 1]
        if key.startswith("alias."):
            text = value[1:] if value.startswith("!") else "git " + value
            return judge(text)
        if key.startswith("remote.") and key.endswith(".push") and value.startswith("+"):
            return FORCED
        if key.startswith("remote.") and key.endswith(".mirror") \
                and value.lower() in ("true", "yes", "on", "1"):
            return FORCED
    return None
