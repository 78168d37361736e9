"""Hermes Agent integration: preparing a profile, launching, typing into its pane.

A profile gets the bullpen MCP server under `mcp_servers` (identity passed through
`${…}` interpolation, since Hermes scrubs a stdio server's environment) and three shell
hooks running `bullpen hook hermes`. Changes are computed first (`prepare_profile`),
shown as a diff, backed up and written (`apply_plan`), and reversible (`unsetup`).
`profile: auto` makes `profiles/bullpen-<session>/` from the default profile: its
config.yaml with literal secrets replaced by references, SOUL.md and skills/ copied, .env
linked (`workers.agents.hermes_files`: modes kept, secrets never copied). Unless the profile
already uses another memory provider, it also gets `memory.provider: bullpen` and the
plugin in `plugins/bullpen/` (`workers.agents.hermes_memory`: memory backed by the notebook).
"""

from __future__ import annotations

import difflib
import os
import shlex
import shutil
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from board.errors import BadInput
from board.vocabulary import IDENTITY_VARIABLES
from workers.agents import hermes_files, hermes_memory
from workers.agents.bullpen_command import bullpen_executable

AUTO = "auto"
SERVER_NAME = "bullpen"
HOOK_EVENTS = ("pre_llm_call", "post_tool_call", "on_session_end")
HOOK_TIMEOUT_SECONDS = 10
BACKUP_PREFIX = "config.yaml.bullpen-backup-"
SECRET_FILES = (".env",)  # linked, never copied; auth.json falls back to the root's itself
IDENTITY_ENV = {name.value: f"${{{name}}}" for name in IDENTITY_VARIABLES}


@dataclass(frozen=True)
class ProfilePlan:
    """What setting up one profile will change, computed before anything is written."""

    profile: str
    directory: Path
    before: str | None  # config.yaml's text now (None: no file yet)
    after: str
    create: bool = False  # an `auto` profile directory to make
    source: Path | None = None  # where an `auto` profile's config came from
    plugin: tuple[tuple[str, str, str], ...] = ()  # memory plugin files: (name, now, new)

    @property
    def config_path(self) -> Path:
        return self.directory / "config.yaml"

    @property
    def changed(self) -> bool:
        return self.create or self.before != self.after or bool(self.plugin)

    def diff(self) -> str:
        """A unified diff of config.yaml (and of the memory plugin's files), before → after."""
        files = [(self.config_path, self.before or "", self.after)] + [
            (plugin_dir(self.directory) / name, now, new) for name, now, new in self.plugin]
        return "".join("".join(difflib.unified_diff(
            now.splitlines(keepends=True), new.splitlines(keepends=True),
            fromfile=f"{path} (now)", tofile=f"{path} (with bullpen)"))
            for path, now, new in files)


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
    return directory / "plugins" / hermes_memory.PLUGIN_NAME


def _plugin_changes(directory: Path, config: dict) -> tuple[tuple[str, str, str], ...]:
    """The plugin files to (re)write, when `config` selects bullpen's memory provider."""
    if _section(config, "memory").get("provider") != hermes_memory.PLUGIN_NAME:
        return ()
    changes = []
    for name, new in hermes_memory.plugin_files().items():
        path = plugin_dir(directory) / name
        now = path.read_text() if path.exists() else ""
        if now != new:
            changes.append((name, now, new))
    return tuple(changes)


def auto_profile_name(session: str) -> str:
    return f"bullpen-{session}"


def _read_config(path: Path) -> tuple[str | None, dict]:
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
    return f"{shlex.quote(executable)} hook hermes"


def _is_ours(entry: object) -> bool:
    return isinstance(entry, dict) and str(entry.get("command", "")).endswith(" hook hermes")


def _section(config: dict, key: str) -> dict:
    value = config.get(key) or {}
    if not isinstance(value, dict):
        raise BadInput(f"the {key!r} key of the hermes config is not a mapping; fix it first")
    return dict(value)


def with_bullpen(config: dict, executable: str) -> dict:
    """`config` plus bullpen's MCP server and hooks (replacing earlier bullpen entries)."""
    merged = dict(config)
    servers = _section(merged, "mcp_servers")
    servers[SERVER_NAME] = {"command": executable, "args": ["mcp"], "env": dict(IDENTITY_ENV)}
    merged["mcp_servers"] = servers
    hooks = _section(merged, "hooks")
    for event in HOOK_EVENTS:
        existing = hooks.get(event) or []
        if not isinstance(existing, list):
            raise BadInput(f"hooks.{event} of the hermes config is not a list; fix it first")
        hooks[event] = [entry for entry in existing if not _is_ours(entry)] + [
            {"command": hook_command(executable), "timeout": HOOK_TIMEOUT_SECONDS}]
    merged["hooks"] = hooks
    memory = _section(merged, "memory")
    if memory.get("provider") in (None, "", hermes_memory.PLUGIN_NAME):  # never replace one
        merged["memory"] = {**memory, "provider": hermes_memory.PLUGIN_NAME}
    return merged


def without_bullpen(config: dict) -> dict:
    """`config` with bullpen's entries removed, dropping sections left empty."""
    cleaned = dict(config)
    servers = _section(cleaned, "mcp_servers")
    servers.pop(SERVER_NAME, None)
    hooks = _section(cleaned, "hooks")
    for event in HOOK_EVENTS:
        if isinstance(hooks.get(event), list):
            kept = [entry for entry in hooks[event] if not _is_ours(entry)]
            if kept:
                hooks[event] = kept
            else:
                hooks.pop(event)
    for key, section in (("mcp_servers", servers), ("hooks", hooks)):
        if section:
            cleaned[key] = section
        else:
            cleaned.pop(key, None)
    memory = _section(cleaned, "memory")
    if memory.get("provider") == hermes_memory.PLUGIN_NAME:
        memory.pop("provider")
        if memory:
            cleaned["memory"] = memory
        else:
            cleaned.pop("memory")
    return cleaned


def _render(before: str | None, original: dict, merged: dict) -> str:
    """The new text. When our sections are new, they are appended so the user's comments
    and layout survive; otherwise the whole document is written again."""
    dump = yaml.safe_dump
    if before is not None and merged == original:
        return before
    ours = [key for key in merged if merged[key] != original.get(key)]
    if before is not None and not (set(ours) & set(original)):
        added = {key: merged[key] for key in ours}
        prefix = before if not before or before.endswith("\n") else before + "\n"
        return prefix + dump(added, sort_keys=False, default_flow_style=False)
    return dump(merged, sort_keys=False, default_flow_style=False)


def prepare_profile(profile: str, session: str, hermes_home: Path,
                    executable: str | None = None) -> ProfilePlan:
    """Compute the changes that make `profile` (or, with `auto`, a new `bullpen-<session>`
    profile cloned from the default one) talk to bullpen. Nothing is written."""
    executable = executable or bullpen_executable()
    if profile == AUTO:
        name = auto_profile_name(session)
        directory = profile_dir(name, hermes_home)
        source = profile_dir("default", hermes_home) / "config.yaml"
        if (directory / "config.yaml").exists():  # made by an earlier launch: reuse it
            before, original = _read_config(directory / "config.yaml")
            merged = with_bullpen(hermes_files.without_secrets(original), executable)
            return ProfilePlan(name, directory, before, _render(before, original, merged),
                               plugin=_plugin_changes(directory, merged))
        before, original = _read_config(source)
        merged = with_bullpen(hermes_files.without_secrets(original), executable)
        return ProfilePlan(name, directory, None, _render(before, original, merged),
                           create=True, source=source,
                           plugin=_plugin_changes(directory, merged))
    directory = profile_dir(profile, hermes_home)
    if not directory.is_dir():
        raise BadInput(f"hermes profile {profile!r} does not exist ({directory}); create it"
                       f" with 'hermes profile create {profile}' or use profile: auto")
    before, original = _read_config(directory / "config.yaml")
    merged = with_bullpen(original, executable)
    return ProfilePlan(profile, directory, before, _render(before, original, merged),
                       plugin=_plugin_changes(directory, merged))


def _backup(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup = path.with_name(f"{BACKUP_PREFIX}{stamp}")
    suffix = 1
    while backup.exists():
        backup = path.with_name(f"{BACKUP_PREFIX}{stamp}-{suffix}")
        suffix += 1
    hermes_files.copy_keeping_mode(path, backup)
    return backup


def _write(path: Path, text: str) -> None:
    hermes_files.write_keeping_mode(path, text)


def apply_plan(plan: ProfilePlan) -> Path | None:
    """Write a plan: back up the existing config.yaml (returned), then write the new one.
    An `auto` profile is created, its secrets linked to the default profile's."""
    if plan.create:
        hermes_files.make_private_dir(plan.directory)
        if plan.source is not None:
            hermes_files.carry_identity(plan.source.parent, plan.directory)
            for name in SECRET_FILES:
                original = plan.source.parent / name
                link = plan.directory / name
                if original.exists() and not link.exists():
                    link.symlink_to(original.resolve())
    if not plan.changed:
        return None
    for name, _now, new in plan.plugin:
        hermes_files.make_private_dir(plugin_dir(plan.directory))
        _write(plugin_dir(plan.directory) / name, new)
    if plan.before == plan.after and not plan.create:
        return None
    backup = _backup(plan.config_path) if plan.config_path.exists() else None
    _write(plan.config_path, plan.after)
    return backup


def backups(profile: str, hermes_home: Path) -> list[Path]:
    """This profile's bullpen backups of config.yaml, oldest first."""
    return sorted(profile_dir(profile, hermes_home).glob(f"{BACKUP_PREFIX}*"),
                  key=lambda path: path.stat().st_mtime_ns)


def unsetup(profile: str, hermes_home: Path) -> Path | None:
    """Remove bullpen's keys from a profile's config.yaml; returns the backup made of the
    file as it was. When the oldest bullpen backup equals the cleaned config, its exact
    bytes are restored (comments and layout included)."""
    directory = profile_dir(profile, hermes_home)
    path = directory / "config.yaml"
    if not path.exists():
        raise BadInput(f"hermes profile {profile!r} has no config.yaml ({path})")
    before, config = _read_config(path)
    plugin = plugin_dir(directory)
    if (plugin / "__init__.py").exists() and (plugin / "__init__.py").read_text().startswith(
            hermes_memory.PLUGIN_MARKER):
        shutil.rmtree(plugin)
        if not any(plugin.parent.iterdir()):
            plugin.parent.rmdir()
    cleaned = without_bullpen(config)
    if cleaned == config:
        return None
    text = yaml.safe_dump(cleaned, sort_keys=False, default_flow_style=False)
    for candidate in backups(profile, hermes_home):
        try:
            candidate_text, candidate_config = _read_config(candidate)
        except BadInput:
            continue
        if candidate_config == cleaned and candidate_text is not None:
            text = candidate_text
            break
    backup = _backup(path)
    _write(path, text)
    return backup


def hermes_command(profile: str, resume: str | None = None) -> str:
    """The command that starts Hermes' classic REPL on `profile` in a pane, resuming
    conversation `resume` when given."""
    command = f"hermes -p {shlex.quote(profile)} --cli"
    return command + (f" --resume {shlex.quote(resume)}" if resume else "")


def is_set_up(profile: str, hermes_home: Path) -> bool:
    """Whether the profile's config still has bullpen's MCP server and hooks."""
    try:
        _text, config = _read_config(profile_dir(profile, hermes_home) / "config.yaml")
        servers, hooks = _section(config, "mcp_servers"), _section(config, "hooks")
    except BadInput:
        return False
    return SERVER_NAME in servers and all(
        isinstance(hooks.get(event), list) and any(_is_ours(entry) for entry in hooks[event])
        for event in HOOK_EVENTS)


def launch_secrets(profile: str, hermes_home: Path) -> dict[str, str]:
    """The secret values an auto profile's config refers to, read now from the default
    profile, for the pane's environment (never written to a file)."""
    path = profile_dir(profile, hermes_home) / "config.yaml"
    if profile == "default" or not path.exists():
        return {}
    try:
        _text, source = _read_config(profile_dir("default", hermes_home) / "config.yaml")
    except BadInput:
        return {}
    return hermes_files.secret_env(path.read_text(), source)


def hermes_env() -> dict[str, str]:
    """Environment for a Hermes session: consent to the configured shell hooks headlessly."""
    return {"HERMES_ACCEPT_HOOKS": "1"}

