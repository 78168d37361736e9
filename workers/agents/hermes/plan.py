"""A Hermes session's setup in a shared plan: its profile's SOUL.md, skills and config.

Exported from the profile the session runs on (its `bullpen-<session>-<repo>` auto
profile once spawned, else the default profile that one is cloned from, or the profile
it names): `SOUL.md`, `skills/` (regular files; none hidden, so no hub lock or bundled
manifest) and `config.yaml` without bullpen's own entries (MCP server, hooks, memory
provider, PATH file) and with every secret as a `${NAME}` reference
(`workers.agents.plan_secrets`), plus a `distribution.yaml` naming what the partner must
provide, as Hermes' own profile distributions do. Never copied: `.env` (its variables'
names are listed, never their values), `auth.json`, memories, sessions, `state.db`,
logs, plugins, anything else.

Installed into the profile the session will run on here (an auto profile's name holds
the partner's repository path), then set up for bullpen as a spawn would. `.env` is the
partner's: linked to their default profile's, as auto profiles are, and never written.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import yaml

from board.errors import BadInput
from workers.agents.hermes import deny, files
from workers.agents.hermes.config import (
    AUTO,
    hermes_root,
    profile_dir,
    read_config,
    without_bullpen,
)
from workers.agents.hermes.profile import (
    apply_plan,
    auto_profile_name,
    back_up,
    prepare_profile,
)
from workers.agents.hermes.profile_use import PROFILE_NAME, named_profile
from workers.agents.plan_review import brought, refuse_env, review_files
from workers.agents.plan_secrets import (
    Secret,
    changed_strings,
    env_file,
    literal_values,
    scrub,
)
from workers.agents.plan_setup import (
    ExportRequest,
    Installed,
    InstallRequest,
    Setup,
    capped,
    copy_tree,
    home_of,
    inside,
    read_bytes,
    regular_files,
    three_way,
)

SHARED_FILES = ("SOUL.md",)
SHARED_DIRS = ("skills",)
CONFIG = "config.yaml"
MANIFEST = "distribution.yaml"  # Hermes' own profile-distribution manifest
NOT_SHARED = ("auth.json", ".env", "memories/", "sessions/", "state.db", "logs/")


def _profile_of(name: str, agent: str, profile: str | None, root: Path) -> str:
    """The profile a session of `root` runs on here (`auto`: its own auto profile)."""
    chosen = named_profile(agent) or profile
    return auto_profile_name(name, root) if chosen in (None, AUTO) else chosen


def _planned_profile(agent: str, profile: str | None) -> str:
    chosen = named_profile(agent) or profile
    return AUTO if chosen in (None, AUTO) or chosen.startswith("bullpen-") else chosen


def _without_managed_deny(config: dict, managed: tuple[str, ...]) -> dict:
    """`approvals.deny` without the patterns bullpen puts there (the room's policy)."""
    approvals = config.get("approvals")
    if not isinstance(approvals, dict) or not isinstance(approvals.get("deny"), list):
        return config
    kept = [pattern for pattern in approvals["deny"] if pattern not in managed]
    rest = {key: value for key, value in approvals.items() if key != "deny"}
    if kept:
        rest["deny"] = kept
    cleaned = {key: value for key, value in config.items() if key != "approvals"}
    if rest:
        cleaned["approvals"] = rest
    return cleaned


def _shared_config(directory: Path, managed: tuple[str, ...]
                   ) -> tuple[str, list[Secret], list[str]]:
    """config.yaml as shared: bullpen's entries out, secrets as references."""
    _text, config = read_config(directory / CONFIG)
    # What bullpen's launches wrote (bullpen-deny.json lists it, the `*\nP` forms too),
    # then the room's patterns in both forms, for a profile written before that list.
    written = deny.without_deny(without_bullpen(config), deny.ours(directory))
    own = _without_managed_deny(written, tuple(deny.hermes_patterns(managed)))
    scrubbed, secrets = scrub(own, CONFIG)
    text = yaml.safe_dump(scrubbed, sort_keys=False, default_flow_style=False) \
        if scrubbed else ""
    return text, secrets, changed_strings(own, scrubbed)


def _known_literals(root: Path, directory: Path) -> list[str]:
    """Secret values this machine holds for the profile: never to appear in a plan."""
    found: list[str] = []
    for base in {directory, profile_dir("default", root)}:
        with contextlib.suppress(BadInput):
            found += changed_strings(*_pair(base / CONFIG))
        env = base / ".env"
        if env.is_file():
            found += [value for value in env_file(env.read_text(errors="replace")).values()
                      if len(value) >= 8]
        auth = base / "auth.json"
        if auth.is_file():
            with contextlib.suppress(ValueError, UnicodeDecodeError):
                found += literal_values(json.loads(auth.read_text()))
    return found


def _pair(path: Path) -> tuple[object, object]:
    _text, config = read_config(path)
    return config, scrub(config, CONFIG)[0]


def export_setup(request: ExportRequest) -> Setup:
    """Write the session's profile setup into `request.target`."""
    root = hermes_root()
    name = _profile_of(request.name, request.agent, request.profile, request.root)
    directory = profile_dir(name, root)
    planned = _planned_profile(request.agent, request.profile)
    if not directory.is_dir() and name.startswith("bullpen-"):
        name, directory = "default", profile_dir("default", root)  # what auto clones
    if not directory.is_dir():
        raise BadInput(f"{request.name}: hermes profile {name!r} does not exist"
                       f" ({directory}); nothing to export for it")
    setup = Setup(kind="hermes", profile=planned)
    request.target.mkdir(parents=True, exist_ok=True)
    for shared in SHARED_FILES:
        if capped(directory / shared) is not None:
            (request.target / shared).write_bytes((directory / shared).read_bytes())
            setup.files.append(shared)
    for shared in SHARED_DIRS:
        setup.files += [f"{shared}/{path}" for path in
                        copy_tree(directory / shared, request.target / shared)]
    text, setup.secrets, setup.literals = _shared_config(directory, request.managed_deny)
    if text:
        (request.target / CONFIG).write_text(text)
        setup.files.append(CONFIG)
    env = directory / ".env"
    if env.is_file():
        for variable in env_file(env.read_text(errors="replace")):
            if all(secret.name != variable for secret in setup.secrets):
                setup.secrets.append(Secret(variable, ".env"))
    if (directory / "auth.json").exists():
        setup.notes.append("auth.json (Hermes' provider logins) is not shared: log in on"
                           " this profile with hermes model")
    setup.literals += _known_literals(root, directory)
    manifest = {"name": request.name, "version": "1.0.0",
                "description": f"bullpen session {request.name}'s Hermes profile",
                "env_requires": [{"name": secret.name, "description": secret.where,
                                  "required": True} for secret in setup.secrets]}
    (request.target / MANIFEST).write_text(yaml.safe_dump(manifest, sort_keys=False))
    setup.files.append(MANIFEST)
    return setup


def _config_bytes(path: Path | None, ours_out: bool) -> bytes | None:
    """A config.yaml's meaning, as bytes to compare (with `ours_out`, the entries
    bullpen's set-up and launches wrote are taken out: they are no edit of the
    partner's)."""
    if path is None or not path.is_file():
        return None
    _text, config = read_config(path)
    if ours_out:
        config = deny.without_deny(without_bullpen(config), deny.ours(path.parent))
    return yaml.safe_dump(config, sort_keys=True).encode()


def review(source: Path | None) -> list[str]:
    """What the folder's config.yaml brings (hooks, MCP servers' commands, approvals,
    `env`) and its skills' scripts; BadInput for an `env` a plan may never set."""
    if source is None:
        return []
    config: object = {}
    if (source / CONFIG).is_file():
        try:
            config = yaml.safe_load((source / CONFIG).read_text())
        except (yaml.YAMLError, UnicodeDecodeError):
            raise BadInput(f"the plan's {CONFIG} does not parse as YAML") from None
    refuse_env(config, CONFIG)
    return brought(config, CONFIG) + review_files(source, regular_files(source),
                                                  SHARED_DIRS)


def install_setup(request: InstallRequest) -> Installed:
    """Put the plan's SOUL.md, skills and config into the session's profile here."""
    root = hermes_root()
    name = _profile_of(request.name, request.agent, request.profile, request.root)
    if name != "default" and not PROFILE_NAME.match(name):
        raise BadInput(f"{request.name}: {name!r} is no hermes profile name; use lower-case"
                       " letters, digits, '-' or '_'")
    directory = home_of(profile_dir(name, root), root)
    result = Installed(where=f"hermes profile {name} ({directory})")
    known = set(review(request.previous))
    result.brings = [line for line in review(request.source) if line not in known]
    first = request.previous is None
    planned = set(regular_files(request.source)) - {MANIFEST}
    before = set(regular_files(request.previous)) - {MANIFEST} if request.previous else set()
    config_change = "keep"
    # The partner's config.yaml as it was, kept only if the install changes it (a file
    # this install creates, or leaves as it was, has nothing of theirs to keep).
    config_path = directory / CONFIG
    kept = back_up(config_path) if not request.dry_run and config_path.is_file() else None
    for relative in sorted(planned | before):
        new = request.source / relative
        old = request.previous / relative if request.previous else None
        if relative != CONFIG and relative.split("/")[0] not in SHARED_DIRS \
                and relative not in SHARED_FILES:
            continue  # not on the list: never installed
        destination = inside(directory, relative)
        if relative == CONFIG:
            local = _config_bytes(destination, True)
            config_change = three_way(local, _config_bytes(old, False),
                                      _config_bytes(new, False), first, request.force)
            action = config_change
        else:
            local = read_bytes(destination)
            action = three_way(local, read_bytes(old), read_bytes(new), first, request.force)
        if action == "conflict":
            result.conflicts.append(f"{destination}")
        elif action == "take":
            result.written.append(str(destination))
            if local is not None:
                result.replaced.append(str(destination))
            if not request.dry_run:
                _take(new, destination, directory)
    if (config_change == "take" or first) and config_path.is_file() \
            and str(config_path) not in result.replaced:
        result.replaced.append(f"{config_path} (set up for bullpen; yours kept in a backup)")
    if not request.dry_run:
        files.make_private_dir(directory)
        _link_env(directory, root, result)
        if config_change == "take" or first:
            profile = _planned_profile(request.agent, request.profile)
            apply_plan(prepare_profile(name if profile != AUTO else AUTO, request.name,
                                       root, room=request.root), backup=False)
        if kept is not None and read_bytes(kept) == read_bytes(config_path):
            kept.unlink()
        elif kept is not None:
            result.notes.append(f"your config.yaml as it was is kept in {kept}")
    _secrets(request.source, directory, result)
    return result


def _take(new: Path, target: Path, directory: Path) -> None:
    """Write the plan's file (or remove ours, when the plan no longer has it)."""
    if not new.is_file():
        target.unlink(missing_ok=True)
        return
    files.make_private_dir(directory)
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.name == CONFIG and target.parent == directory:
        files.write_keeping_mode(target, new.read_text())
    else:
        target.write_bytes(new.read_bytes())
        if os.access(new, os.X_OK):
            target.chmod(0o755)


def _link_env(directory: Path, root: Path, result: Installed) -> None:
    """The profile's `.env` is the partner's own: linked to their default profile's, as
    an auto profile's is, when they have one; never written."""
    env, default_env = directory / ".env", profile_dir("default", root) / ".env"
    if directory != root and not env.exists() and not env.is_symlink() \
            and default_env.is_file():
        env.symlink_to(default_env.resolve())
        result.notes.append(f"{env} links to your {default_env}")


def _secrets(source: Path, directory: Path, result: Installed) -> None:
    """Each variable the plan's profile needs: where it goes, whether it is there."""
    manifest = source / MANIFEST
    wanted = yaml.safe_load(manifest.read_text()) if manifest.is_file() else {}
    env_path = directory / ".env"
    present = env_file(env_path.read_text(errors="replace")) if env_path.is_file() else {}
    where = str(env_path.resolve() if env_path.is_symlink() else env_path)
    for entry in (wanted or {}).get("env_requires") or []:
        variable = str(entry.get("name", "")) if isinstance(entry, dict) else ""
        if variable:
            provided = bool(present.get(variable) or os.environ.get(variable))
            result.secrets.append((variable, where, provided))
