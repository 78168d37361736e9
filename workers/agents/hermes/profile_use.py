"""Which Hermes profile a launched command really runs on, read as Hermes reads it.

Hermes 0.19 takes its profile from `-p NAME` / `--profile NAME` / `--profile=NAME`
anywhere in its own words, else from `HERMES_HOME` when that is a profile directory
(`…/profiles/NAME`), else from `active_profile` in the root (`hermes profile use`), else
the root itself (`default`). The root is `HERMES_HOME` (or its grandparent when that is a
profile directory), else `~/.hermes`. bullpen adds `-p` itself only to a command without
words of its own (`workers.agents.hermes.launch`); any other command keeps the profile
it names, or the one Hermes picks for it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from board.patterns import lazy
from board.records import record
from workers.agents.command_line import is_assignment, split_command, takes_flags
from workers.agents.hermes.config import profile_dir

PROFILE_NAME = lazy(r"^[a-z0-9][a-z0-9_-]{0,63}$")  # Hermes ignores any other value
HOME_VARIABLE = "HERMES_HOME"


@record(frozen=True)
class ProfileUse:
    """The profile a command runs on: its `name` (when one is named or known) and its
    directory, as Hermes will find it."""

    name: str | None
    directory: Path


def named_profile(agent: str) -> str | None:
    """The profile the command's own words name (`-p NAME`, `--profile[=]NAME`)."""
    line = split_command(agent)
    if line is None:
        return None
    own = list(line.own)
    for index, word in enumerate(own):
        if word == "--":
            break
        value = None
        if word in ("-p", "--profile") and index + 1 < len(own):
            value = own[index + 1]
        elif word.startswith("--profile="):
            value = word.split("=", 1)[1]
        if value is not None:
            return value if PROFILE_NAME.match(value) else None
    return None


def assigned_home(agent: str, env: Mapping[str, str]) -> str | None:
    """`HERMES_HOME` as the command sets it (`HERMES_HOME=… hermes`, `env HERMES_HOME=…
    hermes`), `~` and `$VARS` expanded against `env`."""
    line = split_command(agent)
    for word in line.wrappers if line is not None else ():
        if is_assignment(word) and word.split("=", 1)[0] == HOME_VARIABLE:
            value = word.split("=", 1)[1]
            expanded = re.sub(r"\$\{?(\w+)\}?", lambda m: env.get(m.group(1), ""), value)
            return os.path.expanduser(expanded)
    return None


def adds_profile(agent: str) -> bool:
    """Whether bullpen's launch adds `-p PROFILE` to this command (no words of its own)."""
    line = split_command(agent)
    return line is not None and not line.own and takes_flags(agent)


def _root(home: str | None) -> Path:
    if not home:
        return Path.home() / ".hermes"
    path = Path(home)
    return path.parent.parent if path.parent.name == "profiles" else path


def profile_in_use(agent: str, profile: str | None,
                   env: Mapping[str, str] | None = None) -> ProfileUse:
    """The profile `agent` runs on when bullpen launches it for a session registered
    with `profile` (`env`: the environment the pane inherits, default this process's)."""
    env = os.environ if env is None else env
    home = assigned_home(agent, env) or env.get(HOME_VARIABLE) or None
    root = _root(home)
    named = named_profile(agent)
    if named is None and profile and adds_profile(agent):
        named = profile
    if named is not None:
        return ProfileUse(named, profile_dir(named, root))
    if home and Path(home).parent.name == "profiles":
        return ProfileUse(Path(home).name, Path(home))
    try:
        active = (root / "active_profile").read_text().strip()
    except (OSError, UnicodeDecodeError):
        active = ""
    name = active if PROFILE_NAME.match(active) else "default"
    return ProfileUse(name, profile_dir(name, root))
