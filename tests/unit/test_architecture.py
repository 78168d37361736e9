"""Imports point one way (tui -> workers -> board, worktrees) and stay cheap."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.import_probe import ImportProbe

ROOT = Path(__file__).resolve().parents[2]


def modules_of(package: str) -> list[str]:
    base = ROOT / package
    return sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for path in base.rglob("*.py")
    )


@pytest.fixture(scope="module")
def probe() -> Iterator[ImportProbe]:
    """One fresh interpreter that imports each module in a forked child of its own."""
    started = ImportProbe()
    yield started
    started.close()


@pytest.mark.parametrize("module", modules_of("board") + modules_of("worktrees"))
def test_core_packages_import_neither_each_other_nor_the_ui(module: str,
                                                            probe: ImportProbe) -> None:
    loaded = probe.imported_after(module)
    own = module.split(".")[0]
    other = "worktrees" if own == "board" else "board"
    # The one exception: git errors derive from the shared, stdlib-only error root.
    shared_root = {"board", "board.errors"} if own == "worktrees" else set()
    assert not {name for name in loaded - shared_root
                if name.split(".")[0] in (other, "workers", "tui", "textual")}


@pytest.mark.parametrize("module", modules_of("workers"))
def test_workers_never_import_textual_or_tui(module: str, probe: ImportProbe) -> None:
    loaded = probe.imported_after(module)
    assert not {name for name in loaded if name.split(".")[0] in ("tui", "textual")}


def test_fast_commands_import_no_heavy_library() -> None:
    code = ("import sys; from tui.cli import build_parser; build_parser();"
            "import tui.cli.note_commands, tui.cli.task_commands;"
            "print('\\n'.join(sys.modules))")
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                cwd=ROOT, check=True).stdout.split())
    heavy = {"textual", "git", "libtmux", "watchfiles", "mcp", "yaml", "aiosqlite"}
    assert not {name for name in loaded if name.split(".")[0] in heavy}


def test_import_linter_contracts_hold() -> None:
    linter = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(linter)], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_command_table_names_each_commands_module() -> None:
    import argparse

    from tui import cli

    registered: dict[str, str] = {}
    for module_name in cli.command_modules():
        parser = argparse.ArgumentParser()
        subparsers = parser.add_subparsers()
        __import__(module_name, fromlist=["register"]).register(subparsers)
        for command in subparsers.choices:
            registered[command] = module_name.rsplit(".", 1)[1]
    assert registered == cli.COMMANDS


MODULE_LINE_LIMIT = 350  # STYLE: past ~300 lines a module is a question; past this, two


def test_no_product_module_is_over_the_line_limit() -> None:
    long = {str(path.relative_to(ROOT)): lines
            for package in ("board", "worktrees", "workers", "tui")
            for path in (ROOT / package).rglob("*.py")
            if (lines := len(path.read_text().splitlines())) > MODULE_LINE_LIMIT}
    assert long == {}
