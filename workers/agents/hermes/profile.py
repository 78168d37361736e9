"""Setting up a Hermes profile for bullpen: computed first, shown, backed up, reversible.

Changes are computed first (`prepare_profile`), shown as a diff, backed up and written
(`apply_plan`), and reversible (`unsetup`); what they are is `workers.agents.hermes.config`.
`profile: auto` makes `profiles/bullpen-<session>-<repo hash>/` from the default profile
(the hash keeps sessions of one name in two repositories apart; a session registered
before with `bullpen-<session>` keeps that profile, as its record names it): its
config.yaml with literal secrets replaced by references, SOUL.md and skills/ copied, .env
linked (`workers.agents.hermes.files`: modes kept, secrets never copied). Unless the profile
already uses another memory provider, it also gets `memory.provider: bullpen` and the
plugin in `plugins/bullpen/` (`workers.agents.hermes.memory`: memory backed by the notebook).
"""

from __future__ import annotations

import difflib
import hashlib
import shutil
import time
from pathlib import Path

import yaml

from board.errors import BadInput
from board.records import record
from workers.agents.bullpen_command import bullpen_executable
from workers.agents.hermes import deny, files, memory
from workers.agents.hermes.config import (  # noqa: F401 (AUTO, hermes_root: its callers' words)
    AUTO,
    hermes_root,
    plugin_dir,
    profile_dir,
    read_config,
    section,
    with_bullpen,
    without_bullpen,
)

BACKUP_PREFIX = "config.yaml.bullpen-backup-"
SECRET_FILES = (".env",)  # linked, never copied; auth.json falls back to the root's itself


@record(frozen=True)
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
        shown = [(self.config_path, self.before or "", self.after)] + [
            (plugin_dir(self.directory) / name, now, new) for name, now, new in self.plugin]
        return "".join("".join(difflib.unified_diff(
            now.splitlines(keepends=True), new.splitlines(keepends=True),
            fromfile=f"{path} (now)", tofile=f"{path} (with bullpen)"))
            for path, now, new in shown)


def _plugin_changes(directory: Path, config: dict) -> tuple[tuple[str, str, str], ...]:
    """The plugin files to (re)write, when `config` selects bullpen's memory provider."""
    if section(config, "memory").get("provider") != memory.PLUGIN_NAME:
        return ()
    changes = []
    for name, new in memory.plugin_files().items():
        path = plugin_dir(directory) / name
        now = path.read_text() if path.exists() else ""
        if now != new:
            changes.append((name, now, new))
    return tuple(changes)


def auto_profile_name(session: str, room: Path | None) -> str:
    """`bullpen-<session>-<6 hex of the repository's path>` (the tmux socket's digest);
    without a repository, `bullpen-<session>`."""
    if room is None:
        return f"bullpen-{session}"
    digest = hashlib.sha1(str(Path(room).resolve()).encode()).hexdigest()
    return f"bullpen-{session}-{digest[:6]}"


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
                    executable: str | None = None, room: Path | None = None) -> ProfilePlan:
    """Compute the changes that make `profile` (or, with `auto`, a new profile of
    `session` in the repository `room`, cloned from the default one) talk to bullpen.
    Nothing is written."""
    executable = executable or bullpen_executable()
    if profile == AUTO:
        name = auto_profile_name(session, room)
        directory = profile_dir(name, hermes_home)
        source = profile_dir("default", hermes_home) / "config.yaml"
        if (directory / "config.yaml").exists():  # made by an earlier launch: reuse it
            before, original = read_config(directory / "config.yaml")
            merged = with_bullpen(files.without_secrets(original), executable)
            return ProfilePlan(name, directory, before, _render(before, original, merged),
                               plugin=_plugin_changes(directory, merged))
        before, original = read_config(source)
        merged = with_bullpen(files.without_secrets(original), executable)
        return ProfilePlan(name, directory, None, _render(before, original, merged),
                           create=True, source=source,
                           plugin=_plugin_changes(directory, merged))
    directory = profile_dir(profile, hermes_home)
    if not directory.is_dir():
        raise BadInput(f"hermes profile {profile!r} does not exist ({directory}); create it"
                       f" with 'hermes profile create {profile}' or use profile: auto")
    before, original = read_config(directory / "config.yaml")
    merged = with_bullpen(original, executable)
    return ProfilePlan(profile, directory, before, _render(before, original, merged),
                       plugin=_plugin_changes(directory, merged))


def back_up(path: Path) -> Path:
    """Copy `path` beside itself as a timestamped bullpen backup (its mode kept)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup = path.with_name(f"{BACKUP_PREFIX}{stamp}")
    suffix = 1
    while backup.exists():
        backup = path.with_name(f"{BACKUP_PREFIX}{stamp}-{suffix}")
        suffix += 1
    files.copy_keeping_mode(path, backup)
    return backup


def _write(path: Path, text: str) -> None:
    files.write_keeping_mode(path, text)


def apply_plan(plan: ProfilePlan, *, backup: bool = True) -> Path | None:
    """Write a plan: back up the existing config.yaml (returned; not when `backup` is
    False, for a caller that kept the file as it was before its own writes), then write
    the new one. An `auto` profile is created, its secrets linked to the default one's."""
    if plan.create:
        files.make_private_dir(plan.directory)
        if plan.source is not None:
            files.carry_identity(plan.source.parent, plan.directory)
            for name in SECRET_FILES:
                original = plan.source.parent / name
                link = plan.directory / name
                if original.exists() and not link.exists():
                    link.symlink_to(original.resolve())
    if not plan.changed:
        return None
    for name, _now, new in plan.plugin:
        files.make_private_dir(plugin_dir(plan.directory))
        _write(plugin_dir(plan.directory) / name, new)
    if plan.before == plan.after and not plan.create:
        return None
    made = back_up(plan.config_path) if backup and plan.config_path.exists() else None
    _write(plan.config_path, plan.after)
    return made


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
    before, config = read_config(path)
    plugin = plugin_dir(directory)
    if (plugin / "__init__.py").exists() and (plugin / "__init__.py").read_text().startswith(
            memory.PLUGIN_MARKER):
        shutil.rmtree(plugin)
        if not any(plugin.parent.iterdir()):
            plugin.parent.rmdir()
    cleaned = deny.without_deny(without_bullpen(config), deny.ours(directory))
    (directory / deny.OURS_FILE).unlink(missing_ok=True)
    if cleaned == config:
        return None
    text = yaml.safe_dump(cleaned, sort_keys=False, default_flow_style=False)
    for candidate in backups(profile, hermes_home):
        try:
            candidate_text, candidate_config = read_config(candidate)
        except BadInput:
            continue
        if candidate_config == cleaned and candidate_text is not None:
            text = candidate_text
            break
    backup = back_up(path)
    _write(path, text)
    return backup
