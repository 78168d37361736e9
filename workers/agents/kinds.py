"""Which adapter drives a session: chosen from the agent command's real program.

Wrappers are looked through: `env X=1 claude`, `IS_SANDBOX=1 claude`, `/opt/bin/claude`,
`npx @anthropic-ai/claude-code`, `exec hermes`, `nice -n 5 aider`, `uvx aider-chat`.
"""

from __future__ import annotations

import re
import shlex
from pathlib import PurePath

from workers.agents.adapter import Adapter, AgentKind
from workers.agents.aider.screen import AiderAdapter
from workers.agents.claude.screen import ClaudeAdapter
from workers.agents.codex.screen import CodexAdapter
from workers.agents.hermes.screen import HermesAdapter
from workers.agents.readers.generic import GenericAdapter
from workers.agents.readers.shell import SHELL_PROGRAMS, ShellAdapter

# Programs that run the next word as the real command (their own options skipped).
_WRAPPERS = frozenset({"env", "exec", "nice", "nohup", "command", "stdbuf", "time",
                       "npx", "bunx", "pnpx", "uvx", "pipx", "setsid", "ionice"})
# Options of those wrappers that take a value as the next word.
_VALUED = frozenset({"-n", "-u", "-C", "--chdir", "-S", "-o", "-e", "-i", "-c",
                     "--package", "-p", "--from", "--spec"})
_PACKAGES = {  # npm / PyPI package names that are an agent
    "@anthropic-ai/claude-code": AgentKind.CLAUDE, "@openai/codex": AgentKind.CODEX,
    "aider-chat": AgentKind.AIDER, "hermes-agent": AgentKind.HERMES,
}
_PROGRAMS = {"claude": AgentKind.CLAUDE, "hermes": AgentKind.HERMES,
             "codex": AgentKind.CODEX, "aider": AgentKind.AIDER}


def program_of(command: str | None) -> str:
    """The program a command line really runs, wrappers and VAR=value looked through.

    Returns "" for an empty or unparsable command. npm/PyPI package names are kept
    whole (`@anthropic-ai/claude-code`); other programs lose their directory.
    """
    try:
        words = shlex.split(command or "")
    except ValueError:
        return ""
    index = 0
    while index < len(words):
        word = words[index]
        name = PurePath(word).name
        if "=" in word and not word.startswith("-") and word.split("=", 1)[0].isidentifier():
            index += 1  # VAR=value before the program (or after `env`)
        elif name in _WRAPPERS or (name == "run" and index > 0):
            index += 1
        elif word.startswith("-") and index > 0:
            index += 2 if word in _VALUED else 1
        elif word.isdigit() and index > 0:
            index += 1  # `nice 5 …`
        else:
            return _package_or_name(word)
    return ""


def _package_or_name(word: str) -> str:
    """`@scope/pkg@1.2` -> `@scope/pkg`; `aider-chat==0.8` -> `aider-chat`; else the
    program's file name."""
    if word.startswith("@"):
        bare = "@" + word[1:].split("@", 1)[0]
    else:
        bare = re.split(r"@|==", word, maxsplit=1)[0]
    return bare if bare in _PACKAGES else PurePath(word).name


def kind_of(command: str | None) -> AgentKind:
    """The agent kind of a command: hermes, claude, codex, aider, shell or generic."""
    program = program_of(command)
    if program in _PACKAGES:
        return _PACKAGES[program]
    if program in _PROGRAMS:
        return _PROGRAMS[program]
    if program.lstrip("-") in SHELL_PROGRAMS or not program:
        return AgentKind.SHELL  # no command at all runs the default shell
    return AgentKind.GENERIC


_ADAPTERS: dict[AgentKind, type[Adapter]] = {
    AgentKind.HERMES: HermesAdapter, AgentKind.CLAUDE: ClaudeAdapter,
    AgentKind.CODEX: CodexAdapter, AgentKind.AIDER: AiderAdapter,
    AgentKind.SHELL: ShellAdapter, AgentKind.GENERIC: GenericAdapter,
}


def adapter_for(command: str | None, deliver: str | None = None) -> Adapter:
    """The adapter for a session's agent command. `deliver` is the session's
    `deliver:` setting: `type` lets bullpen type into a generic agent."""
    kind = kind_of(command)
    if kind == AgentKind.GENERIC:
        return GenericAdapter(opted_in=deliver == "type", program=program_of(command))
    return _ADAPTERS[kind]()
