"""A Hermes memory provider backed by the bullpen notebook.

Hermes (0.19.0) loads one external provider, named by `memory.provider` in a profile's
config.yaml, from `$HERMES_HOME/plugins/<name>/__init__.py` through `register(ctx)` ->
`ctx.register_memory_provider(provider)` (hermes' `plugins/memory/__init__.py`). The
provider runs in hermes' own process and venv, which has bullpen's identity in its
environment (BULLPEN_HOME/SESSION/TOKEN) because hermes runs in a bullpen pane.

- Writes: Hermes mirrors every committed write of its built-in `memory` tool to
  `on_memory_write`. Facts about the user (target `user`) become private notebook entries
  of the session; everything else (target `memory`) becomes a shared entry. The notebook
  is append-only: a replacement is written as a new entry, a removal as a retraction.
- Recall: `prefetch` (before each turn) searches the notebooks with the session as
  viewer, so the privacy rule of `board.notebook` holds, and returns other sessions'
  entries that share words with the user's message.

This module imports only `board` and the standard library: the plugin's `__init__.py`
(`plugin_files`) loads `board` and `workers` from this checkout by path, without putting
bullpen's environment on hermes' `sys.path`.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

from board import notebook
from board.models import NotebookEntry
from board.room import Room, open_room
from board.vocabulary import IdentityVariable

try:  # inside hermes: its ABC supplies the default for every optional hook
    from agent.memory_provider import MemoryProvider as _Base
except ImportError:  # bullpen's own process (profile preparation, tests)
    _Base = object

PLUGIN_NAME = "bullpen"
PLUGIN_MARKER = "# bullpen hermes memory plugin"
SHARED_TAG = "hermes-memory"
PRIVATE_TAG = "hermes-user"
RECALL_WORDS = 8  # longest distinct words of the user's message searched for
RECALL_ENTRIES = 5
_WORD = re.compile(r"\w{4,}", re.UNICODE)


class NotebookMemory(_Base):
    """Hermes' memory writes go to this session's notebook; recall reads the notebooks."""

    def __init__(self) -> None:
        self._writes = True

    @property
    def name(self) -> str:
        """The provider's name, as `memory.provider` selects it."""
        return PLUGIN_NAME

    def is_available(self) -> bool:
        """Usable only inside a bullpen session (no I/O: hermes calls this at startup)."""
        return bool(os.environ.get(IdentityVariable.SESSION)
                    and os.environ.get(IdentityVariable.TOKEN))

    def initialize(self, session_id: str, **kwargs: Any) -> None:
        """Check the session's identity now, so a bad token shows as hermes' warning.

        Only the primary agent writes (hermes' contract: subagent, cron and flush
        contexts must not)."""
        self._writes = kwargs.get("agent_context", "primary") == "primary"
        with self._room():
            pass

    def system_prompt_block(self) -> str:
        """Tell the model where its memory goes."""
        return ("Your memory is mirrored to your bullpen notebook: facts about the user stay"
                " private, other memories are shared with the other sessions in this room."
                " Relevant entries from their notebooks are recalled before each turn.")

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        """No tools of its own: the bullpen MCP server already offers notebook tools."""
        return []

    def on_memory_write(self, action: str, target: str, content: str,
                        metadata: dict[str, Any] | None = None) -> None:
        """Mirror one write of hermes' built-in memory tool into the notebook."""
        if not self._writes:
            return
        private = target == "user"
        old = str((metadata or {}).get("old_text") or "")
        if action == "remove":
            body = f"retracted: {old or content}"
        elif action == "replace" and old:
            body = f"{content}\n(replaces: {old})"
        else:
            body = content
        if not body.strip():
            return
        with self._room() as room:
            notebook.write_entry(room.conn, room.caller, body, private=private,
                                 tag=PRIVATE_TAG if private else SHARED_TAG)

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        """Other sessions' entries that share words with `query`, best first."""
        entries = self.recall(query)
        if not entries:
            return ""
        lines = [f"- [{entry.author}] {entry.body}" for entry in entries]
        return "From other bullpen sessions' notebooks:\n" + "\n".join(lines)

    def recall(self, query: str) -> list[NotebookEntry]:
        """Entries by other sessions visible to this one, ranked by words matched."""
        words = sorted({word.lower() for word in _WORD.findall(query or "")},
                       key=lambda word: (-len(word), word))[:RECALL_WORDS]
        if not words:
            return []
        scores: dict[int, int] = {}
        found: dict[int, NotebookEntry] = {}
        with self._room() as room:
            for word in words:
                for entry in notebook.search(room.conn, room.caller, word, limit=20):
                    if entry.author == room.caller.name:
                        continue  # its own entries are in hermes' own memory already
                    found[entry.id] = entry
                    scores[entry.id] = scores.get(entry.id, 0) + 1
        ranked = sorted(found, key=lambda entry_id: (-scores[entry_id], -entry_id))
        return [found[entry_id] for entry_id in ranked[:RECALL_ENTRIES]]

    @staticmethod
    def _room() -> Room:
        """The room as this session; one connection per call (hermes calls from threads)."""
        return open_room(create=False)


def register(ctx: Any) -> None:
    """Hermes' plugin entry point."""
    ctx.register_memory_provider(NotebookMemory())


def _driver_path() -> str | None:
    """The directory holding bullpen's psycopg, when it is installed (bullpen[postgres])."""
    import importlib.util

    spec = importlib.util.find_spec("psycopg")
    if spec is None or not spec.submodule_search_locations:
        return None
    return str(Path(next(iter(spec.submodule_search_locations))).parent)


def plugin_files(root: Path | None = None) -> dict[str, str]:
    """The files of `$HERMES_HOME/plugins/bullpen/`: a manifest and an `__init__.py` that
    loads `board` and `workers` from bullpen's checkout `root` by path."""
    root = (root or Path(__file__).resolve().parents[3]).resolve()
    init = f'''{PLUGIN_MARKER} (written by bullpen; `bullpen hermes unsetup` removes it)
"""Hermes memory provider (register_memory_provider) backed by the bullpen notebook."""
import importlib.util
import sys

_ROOT = {str(root)!r}
# A room on PostgreSQL needs psycopg: if hermes' venv lacks it, take bullpen's, last on
# the path (hermes' own packages win), and only on the same Python it was built for.
_DRIVER = {_driver_path()!r}
if _DRIVER and importlib.util.find_spec("psycopg") is None and \\
        sys.version_info[:2] == {tuple(sys.version_info[:2])!r}:
    sys.path.append(_DRIVER)
for _name in ("board", "workers"):
    if _name not in sys.modules:
        _spec = importlib.util.spec_from_file_location(
            _name, f"{{_ROOT}}/{{_name}}/__init__.py",
            submodule_search_locations=[f"{{_ROOT}}/{{_name}}"])
        _module = importlib.util.module_from_spec(_spec)
        sys.modules[_name] = _module
        _spec.loader.exec_module(_module)

from workers.agents.hermes.memory import register  # noqa: E402,F401
'''
    manifest = (f"name: {PLUGIN_NAME}\nkind: exclusive\nversion: 1\n"
                "description: bullpen notebook as shared memory between sessions\n")
    return {"__init__.py": init, "plugin.yaml": manifest}
