"""`bullpen land NAME` with nothing committed names what the session left uncommitted."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rooms import live_room

pytestmark = pytest.mark.slow


def test_nothing_to_land_names_the_uncommitted_file(git_repo: Path, tmp_path: Path) -> None:
    (git_repo / "bullpen.yaml").write_text("agent: cat\nland: {check: 'true'}\n"
                                           "sessions:\n  tester: {}\n")
    with live_room(git_repo, tmp_path / "logs") as room:
        room.cli("up", "--detach", "--no-dashboard")
        worktree = Path(room.sessions()["tester"]["worktree"])
        (worktree / "test_api.py").write_text("def test_api(): pass\n")
        refused = room.cli("land", "tester", check=False)
        assert refused.returncode == 1, refused
        assert "nothing to land" in refused.stderr
        assert "uncommitted test_api.py lands only once committed" in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1
