"""bullpen's version as installed, read from its distribution's metadata file directly.

What `importlib.metadata.version("bullpen")` answers, without importing importlib.metadata
(its email parser and zipfile cost `bullpen --version` 15 ms, half the interpreter's
start): the first `bullpen` distribution on `sys.path`, as importlib.metadata finds it
(a `.dist-info` directory's METADATA, or a `.egg-info` one's PKG-INFO).
"""

from __future__ import annotations

import os
import sys

NOT_INSTALLED = "unknown (not installed)"


def version() -> str:
    """bullpen's version as installed (pip, uv tool, pipx or an editable checkout)."""
    for entry in sys.path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:  # a zip, a missing directory: importlib.metadata skips it too
            continue
        for name in names:
            found = _version_in(os.path.join(entry or ".", name), name)
            if found is not None:
                return found
    return NOT_INSTALLED


def _version_in(path: str, name: str) -> str | None:
    """The Version: of `path` if it is bullpen's distribution metadata, else None."""
    stem, dot, kind = name.rpartition(".")
    if not dot or kind not in ("dist-info", "egg-info"):
        return None
    if stem.split("-", 1)[0].lower().replace("-", "_").replace(".", "_") != "bullpen":
        return None
    try:
        with open(os.path.join(path, "METADATA" if kind == "dist-info" else "PKG-INFO"),
                  encoding="utf-8") as metadata:
            for line in metadata:
                if line.startswith("Version:"):
                    return line.removeprefix("Version:").strip()
                if not line.strip():  # the headers end at the first empty line
                    break
    except OSError:
        return None
    return None
