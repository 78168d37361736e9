"""What runs in a session's pane: the agent command, its environment, its set-up step.

The kind comes from the registry (`kinds.adapter_for`, wrappers looked through), and the
kind's adapter adds what bullpen needs to its command (`Adapter.launch_command`): Claude's
settings and MCP config, Codex's MCP server, Hermes' profile. Any other program runs as
it is.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from board.models import Session
from board.records import record
from board.vocabulary import IdentityVariable
from workers.agents import agent_files, command_policy
from workers.agents.adapter import AgentKind, Launch
from workers.agents.command_line import is_assignment, is_simple, split_command, takes_flags
from workers.agents.kinds import adapter_for
from workers.tmux.layout import tool_path


@record(frozen=True)
class LaunchPlan:
    command: str
    env: dict[str, str]
    kind: AgentKind  # the registry's kind of the agent command


def launch_plan(session: Session, token: str, home: Path, setup: str | None = None,
                fresh: bool = False, deny: tuple[str, ...] = ()) -> LaunchPlan:
    """The command and environment for one launch of `session`'s agent.

    Hermes, Claude and Codex resume the session's last conversation unless `fresh`.
    `deny` is the room's `deny:`; with bullpen's floor it is kept for the session's
    hooks and handed to the kind, which enforces it its own way (or cannot)."""
    agent = session.agent or "sh"
    adapter = adapter_for(agent, session.deliver)
    env = {
        IdentityVariable.HOME: str(home),
        IdentityVariable.SESSION: session.name,
        IdentityVariable.TOKEN: token,
        "PATH": tool_path(),
    }
    rules = command_policy.patterns(deny)
    command_policy.store(home, session.name, rules)
    command = adapter.launch_command(agent, Launch(session, token, home, fresh, env, rules))
    if adapter.serves_mcp(agent, session):
        agent_files.mark_mcp_waiting(home, session.name)
    if setup:
        # The set-up step runs first in the worktree; if it fails the pane shows its exit.
        command = f"{setup} || exit $?; exec {exec_form(command)}"
    return LaunchPlan(command=pane_command(command, env["PATH"]), env=env, kind=adapter.kind)


def pane_command(command: str, path: str) -> str:
    """The shell line a pane runs: PATH set again, and the agent exec'd when it can be.

    tmux (3.x) gives a new pane the PATH of the tmux client that made it, overriding
    `-e PATH=`, so it is exported in the pane's shell (agents must find this `bullpen`).
    A simple command is exec'd: a shell such as dash would otherwise stay the pane's
    foreground process, and notes for a pane running a shell are typed as comments.
    """
    exported = f"export PATH={shlex.quote(path)}; "
    if is_simple(command):
        return exported + f"exec {command}"
    return exported + (f"exec {exec_form(command)}" if _assigned_simple(command) else command)


def exec_form(command: str) -> str:
    """What `exec` takes for `command`: `VAR=1 prog …` runs as `env VAR=1 prog …`, so
    the program itself (not the shell) is the pane's foreground process."""
    return f"env {command}" if _assigned_simple(command) else command


def _assigned_simple(command: str) -> bool:
    """`VAR=value … program args`: assignments, then a simple command."""
    line = split_command(command)
    return (line is not None and bool(line.wrappers) and all(map(is_assignment, line.wrappers))
            and takes_flags(command))
