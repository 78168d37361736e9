"""`bullpen --version` reads the installed distribution's metadata itself (issue 34: the
parser and importlib.metadata were most of its cost) and says what importlib.metadata says."""

from __future__ import annotations

import importlib
import sys
from importlib import metadata
from pathlib import Path

import pytest

from tui.cli.version import NOT_INSTALLED, version


def test_it_is_the_version_importlib_metadata_finds() -> None:
    assert version() == metadata.version("bullpen")


@pytest.mark.parametrize("folder, file", [("bullpen-9.8.7.dist-info", "METADATA"),
                                          ("bullpen.egg-info", "PKG-INFO")])
def test_the_first_distribution_on_the_path_is_the_one(tmp_path: Path, folder: str, file: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bullpen_tools-1.0.dist-info").mkdir()  # another project: not bullpen's
    (tmp_path / "bullpen_tools-1.0.dist-info" / "METADATA").write_text("Version: 1.0\n")
    (tmp_path / folder).mkdir()
    (tmp_path / folder / file).write_text("Metadata-Version: 2.1\nName: bullpen\n"
                                          "Version: 9.8.7\n\nVersion: 0.0 (the body)\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    importlib.invalidate_caches()
    assert version() == "9.8.7" == metadata.version("bullpen")


def test_none_installed_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", [str(tmp_path / "missing"), str(tmp_path)])
    assert version() == NOT_INSTALLED
