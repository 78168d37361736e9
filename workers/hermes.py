"""Hermes Agent integration: preparing a profile, launching, typing into its pane.

A profile gets the bullpen MCP server under `mcp_servers` (identity passed through
`${…}` interpolation, since Hermes scrubs a stdio server's environment) and three shell
hooks running `bullpen hook hermes`. Changes are computed first (`prepare_profile`),
shown as a diff, backed up and written (`apply_plan`), and reversible (`unsetup`).
`profile: auto` makes `profiles/bullpen-<session>/` from the default profile's
config.yaml; secrets (.env) are linked to the original, never copied.
"""

from __future__ import annotations

import difflib
import os
import shlex
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from board.errors import BadInput
from workers.hooks import bullpen_executable

AUTO = "auto"
SERVER_NAME = "bullpen"
HOOK_EVENTS = ("pre_llm_call", "post_tool_call", "on_session_end")
HOOK_TIMEOUT_SECONDS = 10
BACKUP_PREFIX = "config.yaml.bullpen-backup-"
SECRET_FILES = (".env",)  # linked, never copied; auth.json falls back to the root's itself
IDENTITY_ENV = {name: f"${{{name}}}" for name in
                ("BULLPEN_HOME", "BULLPEN_SESSION", "BULLPEN_TOKEN")}


@dataclass(frozen=True)
class ProfilePlan:
    """What setting up one profile will change, computed before anything is written."""

    profile: str
    directory: Path
    before: str | None  # config.yaml's text now (None: no file yet)
    after: str
    create: bool = False  # an `auto` profile directory to make
    source: Path | None = None  # where an `auto` profile's config came from

    @property
    def config_path(self) -> Path:
        return self.directory / "config.yaml"

    @property
    def changed(self) -> bool:
        return self.create or self.before != self.after

    def diff(self) -> str:
        """A unified diff of config.yaml, before → after."""
        lines = difflib.unified_diff((self.before or "").splitlines(keepends=True),
                                     self.after.splitlines(keepends=True),
                                     fromfile=f"{self.config_path} (now)",
                                     tofile=f"{self.config_path} (with bullpen)")
        return "".join(lines)


def hermes_root(env: Mapping[str, str] | None = None) -> Path:
    """Hermes' root home: HERMES_HOME if set, else ~/.hermes."""
    env = os.environ if env is None else env
    explicit = env.get("HERMES_HOME")
    return Path(explicit) if explicit else Path.home() / ".hermes"


def profile_dir(profile: str, hermes_home: Path) -> Path:
    """Where a profile lives: the root itself for `default`, else `profiles/<name>`."""
    return hermes_home if profile == "default" else hermes_home / "profiles" / profile


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
    return cleaned


def _render(before: str | None, original: dict, merged: dict) -> str:
    """The new text. When our sections are new, they are appended so the user's comments
    and layout survive; otherwise the whole document is written again."""
    dump = yaml.safe_dump
    if before is not None and merged == original:
        return before
    if before is not None and not ({"mcp_servers", "hooks"} & set(original)):
        added = {key: merged[key] for key in ("mcp_servers", "hooks")}
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
            return ProfilePlan(name, directory, before,
                               _render(before, original, with_bullpen(original, executable)))
        before, original = _read_config(source)
        after = _render(before, original, with_bullpen(original, executable))
        return ProfilePlan(name, directory, None, after, create=True, source=source)
    directory = profile_dir(profile, hermes_home)
    if not directory.is_dir():
        raise BadInput(f"hermes profile {profile!r} does not exist ({directory}); create it"
                       f" with 'hermes profile create {profile}' or use profile: auto")
    before, original = _read_config(directory / "config.yaml")
    after = _render(before, original, with_bullpen(original, executable))
    return ProfilePlan(profile, directory, before, after)


def _backup(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup = path.with_name(f"{BACKUP_PREFIX}{stamp}")
    suffix = 1
    while backup.exists():
        backup = path.with_name(f"{BACKUP_PREFIX}{stamp}-{suffix}")
        suffix += 1
    backup.write_bytes(path.read_bytes())
    return backup


def _write(path: Path, text: str) -> None:
    staged = path.with_name(path.name + ".bullpen-tmp")
    staged.write_text(text)
    staged.replace(path)


def apply_plan(plan: ProfilePlan) -> Path | None:
    """Write a plan: back up the existing config.yaml (returned), then write the new one.
    An `auto` profile is created, its secrets linked to the default profile's."""
    if plan.create:
        plan.directory.mkdir(parents=True, exist_ok=True)
        if plan.source is not None:
            for name in SECRET_FILES:
                original = plan.source.parent / name
                link = plan.directory / name
                if original.exists() and not link.exists():
                    link.symlink_to(original.resolve())
    if not plan.changed:
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


def hermes_command(profile: str) -> str:
    """The command that starts Hermes' classic REPL on `profile` in a pane."""
    return f"hermes -p {shlex.quote(profile)} --cli"


def hermes_env() -> dict[str, str]:
    """Environment for a Hermes session: consent to the configured shell hooks headlessly."""
    return {"HERMES_ACCEPT_HOOKS": "1"}


def hermes_typed_form(text: str, busy: bool) -> str:
    """What to type into a Hermes pane: while it is busy, `/queue TEXT` (a bare Enter
    would interrupt its work); the queued form is one line."""
    if not busy:
        return text
    return "/queue " + " ".join(text.split())
