"""Which modules does importing one module load? Asked of a fresh interpreter, cheaply.

Run as a script, it reads module names from stdin, one a line; for each it forks a child
of itself (an interpreter that has loaded nothing of bullpen) that imports the module and
writes every name in `sys.modules`, then a NUL. One interpreter start for the whole run
instead of one a module: the architecture tests ask this of some 200 modules.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
END = "\0"


class ImportProbe:
    """The test side: one probe process, asked module by module."""

    def __init__(self) -> None:
        self._process = subprocess.Popen([sys.executable, __file__], cwd=ROOT, text=True,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def imported_after(self, module: str) -> set[str]:
        """Every module loaded by importing `module` in a fresh interpreter."""
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(module + "\n")
        self._process.stdin.flush()
        answer = []
        while (char := self._process.stdout.read(1)) not in (END, ""):
            answer.append(char)
        text = "".join(answer)
        if text.startswith("!"):
            raise AssertionError(f"importing {module} failed: {text[1:]}")
        return set(text.split())

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait(10)


def _serve() -> None:
    sys.path.insert(0, str(ROOT))
    for line in sys.stdin:
        module = line.strip()
        pid = os.fork()
        if pid == 0:
            try:
                importlib.import_module(module)
                sys.stdout.write("\n".join(sys.modules))
            except BaseException as error:  # said to the test, which fails naming it
                sys.stdout.write(f"!{type(error).__name__}: {error}")
            sys.stdout.write(END)
            sys.stdout.flush()
            os._exit(0)
        os.waitpid(pid, 0)


if __name__ == "__main__":
    _serve()
