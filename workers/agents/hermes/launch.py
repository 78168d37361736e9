"""How a pane starts Hermes: its classic REPL on the session's profile, resuming the
session's last conversation, with hook consent and the secrets an auto profile refers to.

The profile flags go after the program, through its wrappers (`env X=1 hermes`,
`/opt/bin/hermes`, `uvx --from hermes-agent hermes`); a command with words of its own
(`hermes chat -q …`) runs as written, on the profile it names.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from board.errors import BadInput, Refused
from board.models import Session
from workers.agents import agent_files
from workers.agents.command_line import split_command, takes_flags, with_flags
from workers.agents.hermes import config, files
from workers.agents.hermes import deny as hermes_deny


def hermes_flags(profile: str, resume: str | None = None) -> list[str]:
    """Hermes' flags for its classic REPL on `profile`, resuming conversation `resume`."""
    return ["-p", profile, "--cli", *(["--resume", resume] if resume else [])]


def hermes_command(profile: str, resume: str | None = None) -> str:
    """The command that starts Hermes' classic REPL on `profile` in a pane, resuming
    conversation `resume` when given."""
    return shlex.join(["hermes", *hermes_flags(profile, resume)])


def launch_command(agent: str, session: Session, home: Path, env: dict[str, str],
                   fresh: bool, deny: tuple[str, ...] = ()) -> str:
    """Hermes' command (its profile, the conversation to resume) and environment (hook
    consent, the secrets its auto profile refers to); the room's command patterns `deny`
    go into the profile's `approvals.deny`, beneath bullpen's own `pre_tool_call` hook
    (added here to a profile set up before it existed). Refused when the profile lost
    bullpen's set-up since spawn checked it."""
    env.update(hermes_env())
    if not session.profile:
        return agent
    root = config.hermes_root()
    if not config.is_set_up(session.profile, root):
        raise Refused(f"hermes profile {session.profile!r} no longer has bullpen's MCP server"
                      f" and hooks; set it up again with: bullpen hermes setup"
                      f" {session.profile}")
    config.add_missing_hooks(config.profile_dir(session.profile, root))
    hermes_deny.write(config.profile_dir(session.profile, root), deny)
    env.update(launch_secrets(session.profile, root))
    write_path_file(home, env.get("PATH", ""))
    if fresh:
        agent_files.forget(home, session.name, agent_files.CONVERSATION)
    line = split_command(agent)
    if line is None or line.own or not takes_flags(agent):
        return agent  # its own words may be a subcommand or a profile of its own
    resume = agent_files.read_value(home, session.name, agent_files.CONVERSATION)
    return with_flags(agent, hermes_flags(session.profile, resume))


def write_path_file(home: Path, path: str) -> None:
    """The file the profile's `terminal.shell_init_files` sources (config.PATH_INIT):
    the pane's PATH first again, since the terminal tool's login shell reset it."""
    first = path.split(os.pathsep)[0] if path else ""
    if not first:
        return
    target = home / config.PATH_FILE
    text = f"PATH={shlex.quote(first)}:\"$PATH\"; export PATH\n"
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, files.FILE_MODE)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(text)


def launch_secrets(profile: str, hermes_home: Path) -> dict[str, str]:
    """The secret values an auto profile's config refers to, read now from the default
    profile, for the pane's environment (never written to a file)."""
    path = config.profile_dir(profile, hermes_home) / "config.yaml"
    if profile == "default" or not path.exists():
        return {}
    try:
        _text, source = config.read_config(config.profile_dir("default", hermes_home)
                                           / "config.yaml")
    except BadInput:
        return {}
    return files.secret_env(path.read_text(), source)


def hermes_env() -> dict[str, str]:
    """Environment for a Hermes session: consent to the configured shell hooks headlessly."""
    return {"HERMES_ACCEPT_HOOKS": "1"}
