"""Running the real `bullpen` console script, as a user or an agent would."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

BULLPEN = str(Path(sys.executable).parent / "bullpen")


def run_cli(*args: str, cwd: Path, env: Mapping[str, str] | None = None,
            input: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run `bullpen ARGS` in `cwd` with the test's environment plus `env`."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([BULLPEN, *args], cwd=cwd, env=full_env, capture_output=True,
                          text=True, input=input, timeout=timeout)


def identity(home: Path, name: str, token: str) -> dict[str, str]:
    """The environment a session's agent runs with."""
    return {"BULLPEN_HOME": str(home), "BULLPEN_SESSION": name, "BULLPEN_TOKEN": token}
