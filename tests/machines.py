"""Two machines simulated on one host: two clones of one bare repository, each with its
own room home (`.bullpen/`) whose local config names the one shared PostgreSQL database
and the machine's own name."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from board import store
from board.room import prepare_home
from tests.conftest import commit_file, git


@dataclass(frozen=True)
class Machine:
    name: str
    repo: Path

    @property
    def home(self) -> Path:
        return self.repo / ".bullpen"


def make_bare_origin(tmp_path: Path) -> Path:
    """A bare repository with one commit on `main` (src/app.py, README.md)."""
    seed = tmp_path / "seed"
    seed.mkdir()
    git(seed, "init", "-q", "-b", "main")
    commit_file(seed, "src/app.py", "def handler():\n    return 'v1'\n", "initial commit")
    commit_file(seed, "README.md", "# demo repo\n", "readme")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(origin))
    return origin


def join_machine(origin: Path, where: Path, name: str, url: str) -> Machine:
    """Clone `origin` at `where` and point its room at the shared database as `name`."""
    git(where.parent, "clone", "-q", str(origin), str(where))
    machine = Machine(name, where)
    prepare_home(machine.home)
    store.write_local(machine.home, store=url, machine=name)
    return machine
