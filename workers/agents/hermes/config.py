"""A Hermes profile's config.yaml as bullpen reads and changes it: where profiles live,
bullpen's MCP server and hooks merged in or taken out, and whether they are still there.

The MCP server goes under `mcp_servers` (identity passed through `${…}` interpolation,
since Hermes scrubs a stdio server's environment); four shell hooks run `bullpen hook
hermes` (the one before a terminal command refuses what the room's policy denies);
`memory.provider: bullpen` selects the notebook-backed memory plugin
(`workers.agents.hermes.memory`) unless the profile already uses another provider.
Hermes' terminal tool runs a login shell whose /etc/profile resets PATH, so
`terminal.shell_init_files` gets `${BULLPEN_HOME}/hermes-path.sh` (written by each launch:
bullpen's directory first on PATH), and agents can run `bullpen` by name there too.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path

import yaml

from board.errors import BadInput
from board.vocabulary import IDENTITY_VARIABLES
from workers.agents.hermes import files
from workers.agents.hermes.memory import PLUGIN_NAME

AUTO = "auto"
SERVER_NAME = "bullpen"
HOOK_EVENTS = ("pre_llm_call", "pre_tool_call", "post_tool_call", "on_session_end")
HOOK_TIMEOUT_SECONDS = 10  # the pre-tool decision answers within pre_tool.DECIDE_SECONDS
BEFORE_TOOL = "pre_tool_call"  # hooks.BEFORE_TOOL (not imported: the hook process has no yaml)
HOOK_MATCHERS = {BEFORE_TOOL: "terminal"}  # its command is checked; no other tool's
# A profile set up before bullpen had its pre_tool_call hook is still set up: its next
# launch adds the hook (`add_missing_hooks`).
SET_UP_EVENTS = tuple(event for event in HOOK_EVENTS if event != BEFORE_TOOL)
IDENTITY_ENV = {name.value: f"${{{name}}}" for name in IDENTITY_VARIABLES}
PATH_FILE = "hermes-path.sh"  # in the room's home; Hermes expands the variable itself
PATH_INIT = "${BULLPEN_HOME}/" + PATH_FILE
# What Hermes sources when `shell_init_files` is empty; an explicit list replaces it.
HERMES_INIT_DEFAULTS = ["~/.profile", "~/.bash_profile", "~/.bashrc"]


def hermes_root(env: Mapping[str, str] | None = None) -> Path:
    """Hermes' root home: HERMES_HOME if set, else ~/.hermes."""
    env = os.environ if env is None else env
    explicit = env.get("HERMES_HOME")
    return Path(explicit) if explicit else Path.home() / ".hermes"


def profile_dir(profile: str, hermes_home: Path) -> Path:
    """Where a profile lives: the root itself for `default`, else `profiles/<name>`."""
    return hermes_home if profile == "default" else hermes_home / "profiles" / profile


def plugin_dir(directory: Path) -> Path:
    """Where a profile's bullpen memory plugin lives (`$HERMES_HOME/plugins/bullpen`)."""
    return directory / "plugins" / PLUGIN_NAME


def read_config(path: Path) -> tuple[str | None, dict]:
    """(text, parsed mapping) of a config.yaml; (None, {}) when there is none."""
    if not path.exists():
        return None, {}
    text = path.read_text()
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise BadInput(f"{path} does not parse as YAML{where}; fix it first,"
                       " nothing was changed") from None
    if document is None:
        return text, {}
    if not isinstance(document, dict):
        raise BadInput(f"{path} is not a YAML mapping; fix it first, nothing was changed")
    return text, document


def hook_command(executable: str) -> str:
    """The shell command Hermes runs for every bullpen hook."""
    return f"{shlex.quote(executable)} hook hermes"


def is_ours(entry: object) -> bool:
    """Whether a hook entry is bullpen's own."""
    return isinstance(entry, dict) and str(entry.get("command", "")).endswith(" hook hermes")


def section(config: dict, key: str) -> dict:
    """A copy of the mapping under `key` ({} when absent); BadInput when not a mapping."""
    value = config.get(key) or {}
    if not isinstance(value, dict):
        raise BadInput(f"the {key!r} key of the hermes config is not a mapping; fix it first")
    return dict(value)


def with_bullpen(config: dict, executable: str) -> dict:
    """`config` plus bullpen's MCP server and hooks (replacing earlier bullpen entries)."""
    merged = dict(config)
    servers = section(merged, "mcp_servers")
    servers[SERVER_NAME] = {"command": executable, "args": ["mcp"], "env": dict(IDENTITY_ENV)}
    merged["mcp_servers"] = servers
    hooks = section(merged, "hooks")
    for event in HOOK_EVENTS:
        existing = hooks.get(event) or []
        if not isinstance(existing, list):
            raise BadInput(f"hooks.{event} of the hermes config is not a list; fix it first")
        hooks[event] = [entry for entry in existing if not is_ours(entry)] + [
            _hook_entry(event, executable)]
    merged["hooks"] = hooks
    memory = section(merged, "memory")
    if memory.get("provider") in (None, "", PLUGIN_NAME):  # never replace one
        merged["memory"] = {**memory, "provider": PLUGIN_NAME}
    terminal = section(merged, "terminal")
    init = [entry for entry in _init_files(terminal) if entry != PATH_INIT]
    if not init and terminal.get("auto_source_bashrc", True) is not False:
        init = list(HERMES_INIT_DEFAULTS)  # keep what Hermes sourced by itself
    merged["terminal"] = {**terminal, "shell_init_files": [*init, PATH_INIT]}
    return merged


def _hook_entry(event: str, executable: str) -> dict[str, object]:
    entry: dict[str, object] = {"command": hook_command(executable),
                                "timeout": HOOK_TIMEOUT_SECONDS}
    if event in HOOK_MATCHERS:
        entry["matcher"] = HOOK_MATCHERS[event]
    return entry


def add_missing_hooks(directory: Path) -> None:
    """Give a set-up profile the bullpen hooks it lacks (a profile set up before bullpen
    had them), run as its other bullpen hooks run; at each launch."""
    path = directory / "config.yaml"
    _text, config = read_config(path)
    hooks = section(config, "hooks")
    command = next((str(entry["command"]) for event in SET_UP_EVENTS
                    for entry in hooks.get(event) or [] if is_ours(entry)), None)
    missing = [event for event in HOOK_EVENTS
               if not any(is_ours(entry) for entry in hooks.get(event) or [])]
    if command is None or not missing or any(
            not isinstance(hooks.get(event) or [], list) for event in missing):
        return
    executable = shlex.split(command)[0]
    for event in missing:
        hooks[event] = [*(hooks.get(event) or []), _hook_entry(event, executable)]
    files.write_keeping_mode(path, yaml.safe_dump({**config, "hooks": hooks}, sort_keys=False,
                                                  default_flow_style=False))


def _init_files(terminal: dict) -> list:
    files = terminal.get("shell_init_files") or []
    if not isinstance(files, list):
        raise BadInput("terminal.shell_init_files of the hermes config is not a list;"
                       " fix it first")
    return files


def without_bullpen(config: dict) -> dict:
    """`config` with bullpen's entries removed, dropping sections left empty."""
    cleaned = dict(config)
    servers = section(cleaned, "mcp_servers")
    servers.pop(SERVER_NAME, None)
    hooks = section(cleaned, "hooks")
    for event in HOOK_EVENTS:
        if isinstance(hooks.get(event), list):
            kept = [entry for entry in hooks[event] if not is_ours(entry)]
            if kept:
                hooks[event] = kept
            else:
                hooks.pop(event)
    for key, part in (("mcp_servers", servers), ("hooks", hooks)):
        if part:
            cleaned[key] = part
        else:
            cleaned.pop(key, None)
    terminal = section(cleaned, "terminal")
    if PATH_INIT in _init_files(terminal):
        init = [entry for entry in _init_files(terminal) if entry != PATH_INIT]
        if init and init != HERMES_INIT_DEFAULTS:
            terminal["shell_init_files"] = init
        else:
            terminal.pop("shell_init_files")
        if terminal:
            cleaned["terminal"] = terminal
        else:
            cleaned.pop("terminal")
    memory = section(cleaned, "memory")
    if memory.get("provider") == PLUGIN_NAME:
        memory.pop("provider")
        if memory:
            cleaned["memory"] = memory
        else:
            cleaned.pop("memory")
    return cleaned


def is_set_up(profile: str, hermes_home: Path) -> bool:
    """Whether the profile's config still has bullpen's MCP server and hooks."""
    try:
        _text, config = read_config(profile_dir(profile, hermes_home) / "config.yaml")
        servers, hooks = section(config, "mcp_servers"), section(config, "hooks")
    except BadInput:
        return False
    return SERVER_NAME in servers and all(
        isinstance(hooks.get(event), list) and any(is_ours(entry) for entry in hooks[event])
        for event in SET_UP_EVENTS)
