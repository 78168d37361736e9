"""`bullpen plan export DIR`: the room's plan and its agents' setup, without secrets.

What is written is an allow-list: bullpen.yaml as it is, and per session what its kind's
adapter exports (`Adapter.export_setup`: Hermes' SOUL.md, skills and config with
secrets as references). Before anything is final, every file under DIR is checked for
each secret value this machine holds for those agents (config literals, `.env` values,
`auth.json` strings) and for anything shaped like a key; a hit takes the export back.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from board.errors import BadInput, BullpenError
from board.home import DB_NAME, main_worktree, room_home
from workers.agents.command_policy import patterns
from workers.agents.kinds import adapter_for, kind_of
from workers.agents.plan_secrets import secrets_in_text
from workers.agents.plan_setup import ExportRequest, Setup
from workers.plans import layout
from workers.room import config

README = """# A bullpen team plan

Install it in your clone of the project:

    bullpen plan install {source}

then provide the secrets `bullpen plan install` lists (in each profile's `.env`, or your
environment) and run `bullpen up`. Later: `bullpen plan update`.

Never shared here: API keys, `.env`, `auth.json`, memories, sessions, transcripts,
bullpen's tokens and store. See plan.yaml for the sessions and what you must provide.
"""
GITIGNORE = ".env\n*.env\nauth.json\n"


@dataclass
class Exported:
    directory: Path
    sessions: list[tuple[str, Setup | None]] = field(default_factory=list)
    secrets: list[dict] = field(default_factory=list)


def _registered_profiles(home: Path) -> dict[str, str | None]:
    """Each registered session's profile, when the room has a store here."""
    if not (home / DB_NAME).exists():
        return {}
    from board import sessions
    from board.db import connect

    conn = connect(home / DB_NAME)
    try:
        return {session.name: session.profile for session in sessions.all_sessions(conn)}
    finally:
        conn.close()


def _check_target(target: Path) -> None:
    """DIR is new, empty, or an earlier export (whose files are replaced; .git stays)."""
    if target.exists() and not target.is_dir():
        raise BadInput(f"{target} is a file; give a directory to export the plan into")
    entries = [entry for entry in target.iterdir() if entry.name != ".git"] \
        if target.exists() else []
    if entries and not (target / layout.MANIFEST).is_file():
        raise BadInput(f"{target} holds other files; export into an empty directory or"
                       " over an earlier plan export")


def _prepare(target: Path) -> None:
    """Empty `target` (an earlier export) but for its .git."""
    target.mkdir(parents=True, exist_ok=True)
    for entry in [entry for entry in target.iterdir() if entry.name != ".git"]:
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def _check_text(path: Path, shown: str) -> None:
    try:
        text = path.read_text()
    except UnicodeDecodeError:
        return
    lines = secrets_in_text(text)
    if lines:
        raise BadInput(f"{shown}:{lines[0]} holds what looks like a secret (an API key, a"
                       " bearer token or a password in a URL); move it into an environment"
                       " variable and export again")


def export(target: Path, start: Path | None = None) -> Exported:
    """Write the plan of the repository at `start` (default: the cwd) into `target`."""
    root = main_worktree(start)
    plan = config.load(root)
    if plan.path is None:
        raise BadInput(f"no {config.CONFIG_NAME} in {root}; write one (bullpen init) first")
    _check_text(plan.path, config.CONFIG_NAME)
    target = target.resolve()
    if target == root or root in target.parents and target.parts[len(root.parts)] \
            == ".bullpen":
        raise BadInput(f"{target} is inside the repository's room; export elsewhere")
    registered = _registered_profiles(room_home(start=root))
    _check_target(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(prefix=f".{target.name}.export-", dir=target.parent))
    result = Exported(target)
    try:
        _write(plan, root, registered, staged, result)
        _prepare(target)
        for entry in staged.iterdir():
            entry.rename(target / entry.name)
    finally:
        shutil.rmtree(staged, ignore_errors=True)
    return result


def _write(plan: config.Config, root: Path, registered: dict[str, str | None],
           target: Path, result: Exported) -> None:
    """Write the plan's files into `target` and check them."""
    assert plan.path is not None
    shutil.copyfile(plan.path, target / layout.CONFIG_NAME)
    entries, literals, notes = [], [], []
    for session in plan.sessions:
        folder = f"{layout.AGENTS_DIR}/{session.name}"
        adapter = adapter_for(session.agent, session.deliver)
        setup = adapter.export_setup(ExportRequest(
            session.name, session.agent, registered.get(session.name, session.profile),
            root, target / folder, patterns(plan.deny)))
        result.sessions.append((session.name, setup))
        entry: dict[str, object] = {"name": session.name, "agent": session.agent,
                                    "kind": str(kind_of(session.agent))}
        if setup is not None:
            entry.update({"profile": setup.profile, "setup": folder,
                          "files": setup.files})
            literals += setup.literals
            notes += [f"{session.name}: {note}" for note in setup.notes]
            for secret in setup.secrets:
                _add_secret(result.secrets, secret.name, session.name, secret.where)
        entries.append(entry)
    layout.write_manifest(target, entries, result.secrets, notes)
    (target / "README.md").write_text(README.format(source="PATH-OR-GIT-URL"))
    (target / ".gitignore").write_text(GITIGNORE)
    _final_check(target, literals)


def _add_secret(found: list[dict], name: str, session: str, where: str) -> None:
    for entry in found:
        if entry["name"] == name:
            if session not in entry["sessions"]:
                entry["sessions"].append(session)
            return
    found.append({"name": name, "sessions": [session], "where": where})


def _final_check(target: Path, literals: list[str]) -> None:
    """No file under `target` holds a secret this machine knows, or one shaped like a key."""
    needles = sorted({value.encode() for value in literals if len(value) >= 8}, key=len)
    for relative, data in layout.files_of(target).items():
        if any(needle in data for needle in needles):
            raise BullpenError(f"export stopped: {relative} would hold a secret value of"
                               " this machine's; nothing was exported")
        if relative != layout.CONFIG_NAME:
            _check_text(target / relative, relative)
