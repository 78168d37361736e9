"""What each command a person or an agent types imports, read from the whole process in a
live room (`python -X importtime bullpen ...`): none loads a heavy library.

Issue 34: `bullpen ls --json` was 8.6x the bare interpreter, most of it importing the room's
façade, whose chain (land -> code_view -> worktrees.gitcmd) loaded GitPython (83 ms alone)
for a listing that runs git processes; `--version` built the whole parser and imported
every command module. A command that needs one of these libraries imports it in the verb
that uses it (GitPython in the few that open a repository's object database).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from board.room import open_room
from board.sessions import register
from tests.cli_runner import BULLPEN
from tests.rooms import LiveRoom, live_room

# GitPython (and its gitdb), Textual, YAML, the file watcher, the MCP SDK, psycopg; and the
# parts of bullpen that bring them or the coordinator: a command loading one of these pays
# tens of milliseconds it does not use.
HEAVY = {"git", "gitdb", "textual", "rich", "yaml", "watchfiles", "mcp", "psycopg",
         "importlib.metadata", "email", "workers.coordinator.loop", "workers.room.spawn",
         "workers.room.config", "workers.room.land", "workers.room.lifecycle"}
COMMANDS = (("--version",), ("ls",), ("ls", "--json"), ("task", "ls"), ("note", "inbox"),
            ("note", "inbox", "--all"))


def imported_by(room: LiveRoom, *args: str, env: dict[str, str] | None = None) -> set[str]:
    """Every module the whole `bullpen ARGS` process imported."""
    result = subprocess.run([sys.executable, "-X", "importtime", BULLPEN, *args],
                            cwd=room.repo, env={**os.environ, **(env or {})},
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    return {line.rsplit("|", 1)[1].strip() for line in result.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}


def heavy_in(modules: set[str]) -> set[str]:
    return {name for name in modules
            if any(name == heavy or name.startswith(heavy + ".") for heavy in HEAVY)}


def test_each_typed_command_imports_no_heavy_library(git_repo: Path, tmp_path: Path) -> None:
    (git_repo / "bullpen.yaml").write_text("layout: windows\nsessions:\n  coder:\n"
                                           "    agent: exec cat\n")
    with live_room(git_repo, tmp_path / "logs") as room:
        room.cli("up", "--detach", "--no-dashboard")
        room.cli("task", "add", "a task", "--assign", "coder")
        with open_room(env={"BULLPEN_HOME": str(room.home)}) as board:
            reader = {"BULLPEN_SESSION": "reader", "BULLPEN_TOKEN": register(board.conn, "reader")}
        heavy = {" ".join(args): heavy_in(imported_by(room, *args, env=reader
                                                      if args[0] == "note" else None))
                 for args in COMMANDS}
        assert heavy == {" ".join(args): set() for args in COMMANDS}
        # The check sees what it looks for: `up` on a running room reads the plan (YAML).
        assert {"yaml", "workers.room.lifecycle"} <= heavy_in(
            imported_by(room, "up", "--detach", "--no-dashboard"))
        # And ls, without them, still lists the session with where its code stands.
        row = room.sessions()["coder"]
        assert (row["branch"], row["ahead"], row["behind"]) == ("bullpen/coder", 0, 0)
        assert Path(row["worktree"]).is_dir()
