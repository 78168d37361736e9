"""The `bullpen` command that agents' hooks and MCP entries run, by absolute path.

An agent's hooks run in the agent's own shell, whose PATH may not hold the venv bullpen
was installed in (Hermes resets PATH), so its config names the executable absolutely.
Stdlib and `board.errors` only: the hook process imports this on every call.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from board.errors import BullpenError


def bullpen_executable() -> str:
    """The absolute path of the `bullpen` command that agents' hooks and MCP entries run:
    the one installed beside this interpreter, else the one on PATH."""
    beside = Path(sys.executable).parent / "bullpen"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside.absolute())
    import shutil  # only when not beside the interpreter: shutil costs the hook 3 ms

    found = shutil.which("bullpen")
    if found:
        return str(Path(found).absolute())
    raise BullpenError("cannot find the bullpen command; install bullpen so it is on PATH")
