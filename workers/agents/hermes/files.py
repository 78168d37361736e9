"""Writing Hermes profile files safely: modes kept, secrets never copied.

- Modes: a file bullpen rewrites keeps its mode (a 0600 config.yaml stays 0600, and so
  does its backup); files bullpen creates are 0600 and directories 0700.
- Secrets: Hermes' own custom-endpoint set-up can write `model.api_key` literally into
  config.yaml. An `auto` profile cloned from the default one gets a reference instead
  (`${BULLPEN_SECRET_MODEL__API_KEY}`, expanded by Hermes from its environment), and the
  launch passes the value, read from the default profile at that moment, in the pane's
  environment: no file bullpen writes ever holds it. Keys named like `api_key`, `token`,
  `secret`, `password` count as secrets.
- Carried into an `auto` profile, as Hermes' own `profile create --clone` does: SOUL.md
  and skills/ (copied once, at creation), .env (linked, never copied).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from board.patterns import lazy

SECRET_KEY = lazy(r"api[_-]?key|token|secret|password|passwd", re.IGNORECASE)
REFERENCE = lazy(r"\$\{[^}]+\}")
SECRET_PREFIX = "BULLPEN_SECRET_"
COPIED = ("SOUL.md",)  # files an auto profile gets a copy of
COPIED_DIRS = ("skills",)
FILE_MODE = 0o600
DIR_MODE = 0o700


def secret_name(path: tuple[str, ...]) -> str:
    """The environment variable standing for the secret at `path` (`model.api_key` ->
    `BULLPEN_SECRET_MODEL__API_KEY`)."""
    return SECRET_PREFIX + "__".join(re.sub(r"\W", "_", part).upper() for part in path)


def _walk_secrets(node: object, path: tuple[str, ...] = ()):
    """(path, value) of every literal secret string in a parsed config."""
    if isinstance(node, dict):
        for key, value in node.items():
            here = (*path, str(key))
            if (isinstance(value, str) and value and SECRET_KEY.search(str(key))
                    and not REFERENCE.fullmatch(value.strip())):
                yield here, value
            else:
                yield from _walk_secrets(value, here)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _walk_secrets(item, (*path, str(index)))


def without_secrets(config: dict) -> dict:
    """`config` with each literal secret replaced by a `${BULLPEN_SECRET_…}` reference."""
    def scrub_mapping(node: dict, path: tuple[str, ...]) -> dict:
        out: dict[object, object] = {}
        for key, value in node.items():
            here = (*path, str(key))
            if (isinstance(value, str) and value and SECRET_KEY.search(str(key))
                    and not REFERENCE.fullmatch(value.strip())):
                out[key] = f"${{{secret_name(here)}}}"
            else:
                out[key] = scrub(value, here)
        return out

    def scrub(node: object, path: tuple[str, ...]) -> object:
        if isinstance(node, dict):
            return scrub_mapping(node, path)
        if isinstance(node, list):
            return [scrub(item, (*path, str(index))) for index, item in enumerate(node)]
        return node
    return scrub_mapping(config, ())


def secret_env(referencing: str, source: dict) -> dict[str, str]:
    """The values, from the default profile's config `source`, of the secret references
    that config text `referencing` holds (the pane's environment at launch)."""
    wanted = set(re.findall(r"\$\{(" + SECRET_PREFIX + r"[A-Z0-9_]+)\}", referencing))
    return {name: value for path, value in _walk_secrets(source)
            if (name := secret_name(path)) in wanted}


def write_keeping_mode(path: Path, text: str) -> None:
    """Replace `path` atomically; an existing file's mode is kept, a new file is 0600."""
    mode = path.stat().st_mode & 0o777 if path.exists() else FILE_MODE
    staged = path.with_name(path.name + ".bullpen-tmp")
    fd = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.chmod(staged, mode)  # the umask may have narrowed it
    staged.replace(path)


def copy_keeping_mode(source: Path, target: Path) -> None:
    """Copy a file's bytes with its mode (a backup is as private as the original)."""
    mode = source.stat().st_mode & 0o777
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(fd, "wb") as handle:
        handle.write(source.read_bytes())
    os.chmod(target, mode)


def make_private_dir(directory: Path) -> None:
    """Create `directory` (and missing parents) as 0700."""
    directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    os.chmod(directory, DIR_MODE)


def carry_identity(source_dir: Path, target_dir: Path) -> list[str]:
    """Copy the default profile's SOUL.md and skills/ into a new auto profile; returns
    what was carried."""
    carried = []
    for name in COPIED:
        if (source_dir / name).is_file() and not (target_dir / name).exists():
            shutil.copy2(source_dir / name, target_dir / name)
            carried.append(name)
    for name in COPIED_DIRS:
        if (source_dir / name).is_dir() and not (target_dir / name).exists():
            shutil.copytree(source_dir / name, target_dir / name, symlinks=True)
            carried.append(name + "/")
    return carried
