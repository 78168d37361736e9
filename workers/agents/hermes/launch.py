"""How a pane starts Hermes: its classic REPL on the session's profile, resuming the
session's last conversation, with hook consent and the secrets an auto profile refers to."""

from __future__ import annotations

import shlex
from pathlib import Path

from board.errors import BadInput
from workers.agents.hermes import config, files

HERMES = "hermes"


def hermes_command(profile: str, resume: str | None = None, program: str = HERMES) -> str:
    """The command that starts Hermes' classic REPL on `profile` in a pane, resuming
    conversation `resume` when given. `program` is how the session names hermes."""
    command = f"{program} -p {shlex.quote(profile)} --cli"
    return command + (f" --resume {shlex.quote(resume)}" if resume else "")


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
