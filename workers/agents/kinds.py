"""The one registry of agent kinds: which adapter drives a session, from its command.

The kind is named by the command's real program, wrappers looked through
(`command_line.split_command`): `env X=1 claude`, `IS_SANDBOX=1 claude`, `/opt/bin/claude`,
`npx @anthropic-ai/claude-code`, `exec hermes`, `nice -n 5 aider`, `uvx aider-chat`.
Both the screen reader and the launch take it from here, so what is read on screen as
Claude is launched as Claude.

Adding a kind is its folder (with an `adapter` module whose `ADAPTER` is its `Adapter`
subclass) and one line in `KINDS`. A kind's adapter is imported when first asked for,
so a hook call for one kind never loads the others.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import import_module
from pathlib import PurePath

from board.records import record
from workers.agents.adapter import Adapter, AgentKind
from workers.agents.command_line import split_command

# The generic and shell readers are imported where they are needed: a hook call for
# one kind loads that kind's adapter and no other reader.


@record(frozen=True)
class Kind:
    """One registry line: the names that run an agent kind and the home of its adapter."""

    kind: AgentKind
    programs: tuple[str, ...]  # executables' names
    packages: tuple[str, ...]  # npm / PyPI packages that run it (npx, uvx, pipx …)
    adapter: str  # module holding `ADAPTER`, its Adapter subclass


KINDS = (
    Kind(AgentKind.HERMES, ("hermes",), ("hermes-agent",), "workers.agents.hermes.adapter"),
    Kind(AgentKind.CLAUDE, ("claude",), ("@anthropic-ai/claude-code",),
         "workers.agents.claude.adapter"),
    Kind(AgentKind.CODEX, ("codex",), ("@openai/codex",), "workers.agents.codex.adapter"),
    Kind(AgentKind.AIDER, ("aider",), ("aider-chat",), "workers.agents.aider.adapter"),
)
_BY_NAME = {name: entry for entry in KINDS for name in (*entry.programs, *entry.packages)}
_BY_KIND = {entry.kind: entry for entry in KINDS}


def program_of(command: str | None) -> str:
    """The program a command line really runs, wrappers and VAR=value looked through.

    Returns "" for an empty or unparsable command. npm/PyPI package names are kept
    whole (`@anthropic-ai/claude-code`); other programs lose their directory.
    """
    line = split_command(command)
    return _package_or_name(line.program) if line is not None else ""


def _package_or_name(word: str) -> str:
    """`@scope/pkg@1.2` -> `@scope/pkg`; `aider-chat==0.8` -> `aider-chat`; else the
    program's file name."""
    if word.startswith("@"):
        bare = "@" + word[1:].split("@", 1)[0]
    else:
        bare = re.split(r"@|==", word, maxsplit=1)[0]
    return bare if bare in _BY_NAME else PurePath(word).name


def kind_of(command: str | None) -> AgentKind:
    """The agent kind of a command: hermes, claude, codex, aider, shell or generic."""
    from workers.agents.readers.shell import SHELL_PROGRAMS

    program = program_of(command)
    if program in _BY_NAME:
        return _BY_NAME[program].kind
    if program.lstrip("-") in SHELL_PROGRAMS or not program:
        return AgentKind.SHELL  # no command at all runs the default shell
    return AgentKind.GENERIC


@cache
def adapter_class(kind: AgentKind) -> type[Adapter]:
    """The adapter class of a registered kind (imported on first use)."""
    if kind == AgentKind.SHELL:
        from workers.agents.readers.shell import ShellAdapter

        return ShellAdapter
    if kind not in _BY_KIND:
        from workers.agents.readers.generic import GenericAdapter

        return GenericAdapter
    found = import_module(_BY_KIND[kind].adapter).ADAPTER
    if not (isinstance(found, type) and issubclass(found, Adapter) and found.kind == kind):
        raise TypeError(f"{_BY_KIND[kind].adapter}.ADAPTER is not the {kind} adapter")
    return found


def adapter_for(command: str | None, deliver: str | None = None) -> Adapter:
    """The adapter for a session's agent command. `deliver` is the session's
    `deliver:` setting: `type` lets bullpen type into a generic agent."""
    kind = kind_of(command)
    if kind == AgentKind.GENERIC:
        from workers.agents.readers.generic import GenericAdapter

        return GenericAdapter(opted_in=deliver == "type", program=program_of(command))
    return adapter_class(kind)()


def hook_adapter(name: str) -> Adapter | None:
    """The adapter answering `bullpen hook NAME` (a kind whose agent has hooks), or None."""
    try:
        kind = AgentKind(name)
    except ValueError:
        return None
    adapter = adapter_class(kind)()
    return adapter if adapter.has_hooks else None


def hook_kinds() -> list[str]:
    """The kinds `bullpen hook KIND` takes (each kind's adapter is loaded to ask it)."""
    return [entry.kind.value for entry in KINDS if adapter_class(entry.kind).has_hooks]
