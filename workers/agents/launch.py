"""What runs in a session's pane: the agent command, its environment, its set-up step."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path, PurePath

from board.errors import Refused
from board.identity import hook_key
from board.models import Session
from board.vocabulary import IdentityVariable
from workers.agents.adapter import AgentKind
from workers.tmux.layout import tool_path

# The agents a launch sets up (profile, settings, MCP server); any other runs as it is.
# Named by the command's first word only, unlike the adapter's `kinds.kind_of`: flags are
# appended to the command, which must therefore start with the agent itself.
LAUNCHED_KINDS = (AgentKind.HERMES, AgentKind.CLAUDE, AgentKind.CODEX)


@dataclass(frozen=True)
class LaunchPlan:
    command: str
    env: dict[str, str]
    kind: AgentKind  # hermes, claude, codex or generic


def agent_kind(agent: str | None) -> AgentKind:
    """hermes, claude, codex or generic, from the agent command's program name."""
    try:
        words = shlex.split(agent or "")
    except ValueError:
        return AgentKind.GENERIC
    program = PurePath(words[0]).name if words else ""
    return AgentKind(program) if program in LAUNCHED_KINDS else AgentKind.GENERIC


def launch_plan(session: Session, token: str, home: Path, setup: str | None = None,
                fresh: bool = False) -> LaunchPlan:
    """The command and environment for one launch of `session`'s agent.

    Hermes, Claude and Codex resume the session's last conversation unless `fresh`."""
    agent = session.agent or "sh"
    kind = agent_kind(agent)
    env = {
        IdentityVariable.HOME: str(home),
        IdentityVariable.SESSION: session.name,
        IdentityVariable.TOKEN: token,
        "PATH": tool_path(),
    }
    command = agent
    if kind == AgentKind.HERMES:
        command = _hermes_launch(session, home, env, fresh)
    elif kind == AgentKind.CLAUDE and takes_flags(agent):
        from workers.agents.claude import settings as claude

        files = claude.launch_files(home, session.name)
        env[IdentityVariable.HOOK_KEY] = hook_key(token)  # the per-tool hook's, not the token
        command = claude.claude_command(agent, files, claude.resume_id(home, session.name, fresh))
    elif kind == AgentKind.CODEX and takes_flags(agent):
        from workers.agents.codex import launch as codex

        resume = None if fresh or not session.worktree else codex.last_conversation(
            session.worktree, session.created_at)
        command = codex.codex_command(agent, resume=resume)
    if setup:
        # The set-up step runs first in the worktree; if it fails the pane shows its exit.
        command = f"{setup} || exit $?; exec {command}"
    return LaunchPlan(command=pane_command(command, env["PATH"]), env=env, kind=kind)


def _hermes_launch(session: Session, home: Path, env: dict[str, str], fresh: bool) -> str:
    """Hermes' command (its profile, the conversation to resume) and environment (hook
    consent, the secrets its auto profile refers to). Refused when the profile lost
    bullpen's set-up since spawn checked it."""
    from workers.agents import agent_files
    from workers.agents.hermes import config, launch

    env.update(launch.hermes_env())
    agent = session.agent or AgentKind.HERMES  # the program is named as its kind
    if not session.profile:
        return agent
    root = config.hermes_root()
    if not config.is_set_up(session.profile, root):
        raise Refused(f"hermes profile {session.profile!r} no longer has bullpen's MCP server"
                      f" and hooks; set it up again with: bullpen hermes setup"
                      f" {session.profile}")
    env.update(launch.launch_secrets(session.profile, root))
    if fresh:
        agent_files.forget(home, session.name, agent_files.CONVERSATION)
    if shlex.split(agent) != [AgentKind.HERMES]:
        return agent
    resume = agent_files.read_value(home, session.name, agent_files.CONVERSATION)
    return launch.hermes_command(session.profile, resume)


def takes_flags(command: str) -> bool:
    """A program with arguments, maybe after VAR=value words: flags can be appended."""
    try:
        words = list(shlex.shlex(command, posix=True, punctuation_chars=True))
    except ValueError:
        return False
    return bool(words) and not any(set(word) <= set("();<>|&") for word in words)


def pane_command(command: str, path: str) -> str:
    """The shell line a pane runs: PATH set again, and the agent exec'd when it can be.

    tmux (3.x) gives a new pane the PATH of the tmux client that made it, overriding
    `-e PATH=`, so it is exported in the pane's shell (agents must find this `bullpen`).
    A simple command is exec'd: a shell such as dash would otherwise stay the pane's
    foreground process, and notes for a pane running a shell are typed as comments.
    """
    exported = f"export PATH={shlex.quote(path)}; "
    return exported + (f"exec {command}" if is_simple(command) else command)


def is_simple(command: str) -> bool:
    """A program and its arguments: no shell operators, no leading VAR=value."""
    try:
        words = list(shlex.shlex(command, posix=True, punctuation_chars=True))
    except ValueError:
        return False
    operators = set("();<>|&")
    return bool(words) and "=" not in words[0] and words[0] != "exec" and not any(
        set(word) <= operators for word in words)
