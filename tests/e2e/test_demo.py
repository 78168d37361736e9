"""`bullpen demo --detach`: the whole story runs, every step is printed, exit 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from workers.demo import story
from workers.demo.steps import STEPS
from workers.tmux import layout

pytestmark = pytest.mark.slow


def test_demo_detached_runs_every_step_and_cleans_up(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    result = run_cli("demo", "--detach", "--timeout", "60", cwd=tmp_path,
                     env={"TMPDIR": str(scratch)}, timeout=120)

    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    for number, step in enumerate(STEPS, start=1):
        assert any(f"{number:2}. {step.title} — " in line for line in lines), step.title
    assert lines[-1].startswith(f"all {len(STEPS)} steps happened; the story took")
    assert list(scratch.iterdir()) == []  # the throwaway repository is gone


def test_demo_refuses_a_bad_timeout(tmp_path: Path) -> None:
    result = run_cli("demo", "--detach", "--timeout", "0", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == "bullpen: --timeout must be a positive number of seconds"


def test_demo_that_runs_out_of_time_names_the_missing_step_and_keeps_the_repo(
        tmp_path: Path) -> None:
    said: list[str] = []
    status = story.run_detached(said.append, timeout=0.3, parent=tmp_path)

    assert status == 1
    failed = next(line for line in said if line.startswith("the demo failed at step"))
    number = int(failed.split("step ")[1].split(":")[0])
    assert f": {STEPS[number - 1].title} (not seen within" in failed
    [kept] = [p for p in tmp_path.iterdir() if p.name.startswith("bullpen-demo-")]
    assert (kept / "users-service" / ".bullpen" / "bullpen.db").exists()
    assert not layout.server_for(kept / "users-service").is_alive()  # the room is down
