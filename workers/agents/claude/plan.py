"""A Claude Code session's setup in a shared plan: its settings, CLAUDE.md, agents, skills.

Exported from Claude's own directory (`$CLAUDE_CONFIG_DIR`, else `~/.claude`):
`settings.json` without bullpen's hooks, its MCP permission and server entry, with
every value of its `env` left out and named (no pattern tells a secret from a setting,
and Claude takes `env` values literally, so a reference would not work there: the
partner sets them in their environment) and other secret-looking values as `${NAME}`;
`CLAUDE.md`, `agents/` and `skills/` (regular files).
Never: `.credentials.json`, `~/.claude.json` (the login and account), `projects/`
(transcripts), todos, shell snapshots, anything else.

Installed into `.bullpen/agents/<session>/plan/`, outside the worktree and the partner's
own `~/.claude`: each launch merges `settings.json` under bullpen's own settings
(bullpen's hooks added after the plan's), loads `agents/` and `skills/` as a plugin
(`--plugin-dir`) and appends `CLAUDE.md` to the system prompt (`--append-system-prompt`).
Only those files install (a plugin's `hooks/` or `commands/` never does); what they
bring (hooks, commands, permission modes, `env`) is listed first (`review`).
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import yaml

from board.errors import BadInput
from workers.agents import agent_files
from workers.agents.claude.settings import ALLOWED_TOOLS, SERVER_NAME, _is_our_http, _is_ours
from workers.agents.claude.transcript import config_dir
from workers.agents.plan_review import brought, refuse_env, review_files
from workers.agents.plan_secrets import Secret, changed_strings, literal_values, scrub
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

SETTINGS = "settings.json"
PROMPT = "CLAUDE.md"
SHARED_DIRS = ("agents", "skills")
REQUIRES = "requires.yaml"  # the variables the partner sets, as Hermes' env_requires
PLAN_DIR = "plan"
PLUGIN_MANIFEST = Path(".claude-plugin") / "plugin.json"


def _load(path: Path) -> dict:
    if not path.is_file():
        return {}
    try:
        document = json.loads(path.read_text() or "{}")
    except (ValueError, UnicodeDecodeError):
        raise BadInput(f"{path} is not valid JSON; fix it first") from None
    return document if isinstance(document, dict) else {}


def without_bullpen(settings: dict) -> dict:
    """Claude settings without bullpen's hooks, MCP permission and server entry."""
    cleaned = dict(settings)
    hooks = cleaned.get("hooks")
    if isinstance(hooks, dict):
        kept = {event: [entry for entry in entries if not (_is_ours(entry)
                                                           or _is_our_http(entry))]
                for event, entries in hooks.items() if isinstance(entries, list)}
        kept = {event: entries for event, entries in kept.items() if entries}
        if kept:
            cleaned["hooks"] = kept
        else:
            cleaned.pop("hooks")
    permissions = cleaned.get("permissions")
    if isinstance(permissions, dict) and isinstance(permissions.get("allow"), list):
        allow = [rule for rule in permissions["allow"] if rule not in ALLOWED_TOOLS]
        permissions = {**permissions, "allow": allow} if allow else {
            key: value for key, value in permissions.items() if key != "allow"}
        if permissions:
            cleaned["permissions"] = permissions
        else:
            cleaned.pop("permissions")
    enabled = cleaned.get("enabledMcpjsonServers")
    if isinstance(enabled, list):
        enabled = [name for name in enabled if name != SERVER_NAME]
        if enabled:
            cleaned["enabledMcpjsonServers"] = enabled
        else:
            cleaned.pop("enabledMcpjsonServers")
    return cleaned


def export_setup(request: ExportRequest) -> Setup:
    """Write Claude's shared setup for the session into `request.target`."""
    base = config_dir()
    setup = Setup(kind="claude")
    request.target.mkdir(parents=True, exist_ok=True)
    own = without_bullpen(_load(base / SETTINGS))
    env = own.pop("env", None)
    if isinstance(env, dict):  # every value: no pattern tells a secret from a setting
        for name, value in env.items():
            setup.secrets.append(Secret(str(name), f"{SETTINGS}: env.{name}"))
            setup.literals.append(str(value))
    scrubbed, more = scrub(own, SETTINGS)
    setup.secrets += more
    setup.literals += changed_strings(own, scrubbed)
    if scrubbed:
        (request.target / SETTINGS).write_text(json.dumps(scrubbed, indent=2) + "\n")
        setup.files.append(SETTINGS)
    if capped(base / PROMPT) is not None:
        (request.target / PROMPT).write_bytes((base / PROMPT).read_bytes())
        setup.files.append(PROMPT)
    for shared in SHARED_DIRS:
        setup.files += [f"{shared}/{path}" for path in
                        copy_tree(base / shared, request.target / shared)]
    for secret_file in (base / ".credentials.json", base.parent / ".claude.json"):
        if secret_file.is_file():
            with contextlib.suppress(ValueError, UnicodeDecodeError):
                setup.literals += literal_values(json.loads(secret_file.read_text()))
    if (base / ".credentials.json").is_file() or (base.parent / ".claude.json").is_file():
        setup.notes.append("Claude's login (.credentials.json, ~/.claude.json) is not"
                           " shared: log in with claude on your machine")
    (request.target / REQUIRES).write_text(yaml.safe_dump({"env_requires": [
        {"name": secret.name, "description": secret.where} for secret in setup.secrets]}))
    setup.files.append(REQUIRES)
    return setup


def plan_dir(home: Path, session: str) -> Path:
    """Where a session's installed Claude setup lives (outside the worktree)."""
    return home / agent_files.AGENTS_DIR / session / PLAN_DIR


def _installed_files(directory: Path | None) -> list[str]:
    """The files of a plan's Claude folder that install: settings, CLAUDE.md, the list of
    variables, agents and skills."""
    if directory is None:
        return []
    return [relative for relative in regular_files(directory)
            if relative in (SETTINGS, PROMPT, REQUIRES) or relative.split("/")[0] in SHARED_DIRS]


def review(source: Path | None) -> list[str]:
    """What the folder's setup brings: its settings' hooks, commands, permissions and
    `env`, its agents' and skills' hooks and modes; BadInput for an `env` a plan may
    never set."""
    if source is None:
        return []
    settings = _load(source / SETTINGS)
    refuse_env(settings, SETTINGS)
    return brought(settings, SETTINGS) + review_files(source, _installed_files(source),
                                                      SHARED_DIRS)


def install_setup(request: InstallRequest) -> Installed:
    """Put the plan's Claude setup into `.bullpen/agents/<session>/plan/`."""
    target = home_of(plan_dir(request.home, request.name),
                     request.home / agent_files.AGENTS_DIR)
    result = Installed(where=f"claude setup {target}")
    known = set(review(request.previous))
    result.brings = [line for line in review(request.source) if line not in known]
    first = request.previous is None
    planned = set(_installed_files(request.source))
    before = set(_installed_files(request.previous))
    for relative in sorted(planned | before):
        new = request.source / relative
        old = request.previous / relative if request.previous else None
        destination = inside(target, relative)
        local = read_bytes(destination)
        action = three_way(local, read_bytes(old), read_bytes(new), first, request.force)
        if action == "conflict":
            result.conflicts.append(str(destination))
        elif action == "take":
            result.written.append(str(destination))
            if local is not None:
                result.replaced.append(str(destination))
            if not request.dry_run:
                if new.is_file():
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    destination.write_bytes(new.read_bytes())
                else:
                    destination.unlink(missing_ok=True)
    requires = yaml.safe_load((request.source / REQUIRES).read_text()) \
        if (request.source / REQUIRES).is_file() else {}
    for entry in (requires or {}).get("env_requires") or []:
        name = str(entry.get("name", "")) if isinstance(entry, dict) else ""
        if name:
            result.secrets.append((name, "your environment (where you run bullpen up)",
                                   bool(os.environ.get(name))))
    return result


def launch_settings(home: Path, session: str, ours: dict) -> dict:
    """bullpen's launch settings over the installed plan's: the plan's keys kept, each
    hook event's entries the plan's first and then bullpen's, permissions joined."""
    theirs = _load(plan_dir(home, session) / SETTINGS)
    if not theirs:
        return ours
    merged = {**theirs, **{key: value for key, value in ours.items()
                           if key not in ("hooks", "permissions")}}
    hooks = dict(theirs.get("hooks") or {})
    for event, entries in (ours.get("hooks") or {}).items():
        hooks[event] = [*(hooks.get(event) or []), *entries]
    merged["hooks"] = hooks
    permissions = dict(theirs.get("permissions") or {})
    for key, rules in (ours.get("permissions") or {}).items():
        permissions[key] = [*(permissions.get(key) or []),
                            *[rule for rule in rules if rule not in (permissions.get(key) or [])]]
    merged["permissions"] = permissions
    return merged


def launch_flags(home: Path, session: str) -> list[str]:
    """Claude's flags for the installed plan: its agents and skills as a plugin, its
    CLAUDE.md appended to the system prompt."""
    directory = plan_dir(home, session)
    flags: list[str] = []
    if any((directory / shared).is_dir() for shared in SHARED_DIRS):
        manifest = directory / PLUGIN_MANIFEST
        if not manifest.exists():
            manifest.parent.mkdir(parents=True, exist_ok=True)
            manifest.write_text(json.dumps({"name": f"bullpen-plan-{session}",
                                            "description": "the team plan's agents and"
                                                           " skills"}) + "\n")
        flags += ["--plugin-dir", str(directory)]
    prompt = directory / PROMPT
    if prompt.is_file():
        flags += ["--append-system-prompt", prompt.read_text()]
    return flags


def prepare_launch(home: Path, session: str, settings_file: Path) -> list[str]:
    """Merge the installed plan's settings into the launch's settings file (written by
    bullpen just before); the flags the plan adds to the command."""
    if not plan_dir(home, session).is_dir():
        return []
    ours = _load(settings_file)
    merged = launch_settings(home, session, ours)
    if merged is not ours:
        staged = settings_file.with_name(settings_file.name + ".bullpen-tmp")
        staged.write_text(json.dumps(merged, indent=2, ensure_ascii=False) + "\n")
        staged.replace(settings_file)
    return launch_flags(home, session)
