"""One record idiom per place (board/records.py, docs/development.md): what an agent's
hook process and `bullpen note send` can load makes records with `board.records.record`,
never importing `dataclasses` at run time (it and `inspect` were a third of their imports,
paid on every agent turn)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.import_probe import ImportProbe

ROOT = Path(__file__).resolve().parents[2]
# What the hook process and `note send` can load: record, never dataclasses.
TURN_PATH = ("board", "workers/agents", "workers/surfaces", "workers/logs.py",
             "workers/__init__.py", "tui/__init__.py", "tui/cli")
# Their entry points (the hook's command, in-process and served, and `note send`).
ENTRIES = ("tui.cli", "tui.cli.note_commands", "workers.surfaces.hook_entry",
           "workers.surfaces.hooks", "workers.surfaces.pre_tool_hook")
# path -> why it may import dataclasses although on the turn path. Empty: none may.
ALLOWED: dict[str, str] = {}


def _is_type_checking(test: ast.expr) -> bool:
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"


def _imports_dataclasses(node: ast.stmt) -> bool:
    if isinstance(node, ast.Import):
        return any(alias.name == "dataclasses" for alias in node.names)
    return isinstance(node, ast.ImportFrom) and node.module == "dataclasses"


def run_time_dataclass_imports(source: str) -> list[int]:
    """The lines importing dataclasses when the module is imported: its own statements
    and those of its classes, ifs and trys, except under `if TYPE_CHECKING:`."""
    found: list[int] = []
    pending: list[ast.stmt] = list(ast.parse(source).body)
    while pending:
        node = pending.pop()
        if _imports_dataclasses(node):
            found.append(node.lineno)
        elif isinstance(node, ast.If):
            pending.extend(node.orelse if _is_type_checking(node.test) else
                           node.body + node.orelse)
        elif isinstance(node, ast.Try | ast.With | ast.ClassDef):
            pending.extend(node.body)
            if isinstance(node, ast.Try):
                pending.extend(node.orelse + node.finalbody
                               + [s for h in node.handlers for s in h.body])
    return sorted(found)


def _sources(place: str) -> list[Path]:
    path = ROOT / place
    return [path] if path.suffix == ".py" else sorted(path.rglob("*.py"))


def test_the_scan_finds_an_import_that_runs_and_skips_one_that_does_not() -> None:
    source = ("import os\nfrom dataclasses import dataclass\nif TYPE_CHECKING:\n"
              "    import dataclasses\ndef f():\n    import dataclasses\n"
              "class A:\n    import dataclasses\ntry:\n    pass\nexcept E:\n"
              "    from dataclasses import field\n")
    assert run_time_dataclass_imports(source) == [2, 8, 12]


def test_the_turn_path_makes_records_without_dataclasses() -> None:
    found = {f"{path.relative_to(ROOT)}:{line}"
             for place in TURN_PATH for path in _sources(place)
             for line in run_time_dataclass_imports(path.read_text())}
    allowed = {hit for hit in found if hit.split(":")[0] in ALLOWED}
    assert found - allowed == set(), "use board.records.record here (docs/development.md)"


def test_the_turn_path_names_every_module_its_entry_points_load() -> None:
    """The list above is the real one: what the hook's and note send's modules import is
    inside it, and dataclasses is not among it."""
    places = tuple(".".join(Path(place).with_suffix("").parts).removesuffix(".__init__")
                   for place in TURN_PATH)
    probe = ImportProbe()
    try:
        for entry in ENTRIES:
            loaded = probe.imported_after(entry)
            ours = {name for name in loaded
                    if name.split(".")[0] in ("board", "workers", "tui", "worktrees")}
            outside = {name for name in ours
                       if not any(name == p or name.startswith(p + ".") for p in places)}
            assert (entry, outside, "dataclasses" in loaded) == (entry, set(), False)
    finally:
        probe.close()
