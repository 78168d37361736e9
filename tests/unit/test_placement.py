"""One shared plan across machines: each session runs where `machine:` says, the rest on
the machine that owns the room (or, with no owner recorded, wherever `up` runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from board.errors import BadInput
from workers.room import config
from workers.room.placement import place

PLAN = """
sessions:
  research:
    task: gather
  coder:
    machine: beta
    after: [research]
  reviewer:
    machine: alpha
    on_commit: coder
"""


def load(tmp_path: Path, text: str) -> config.Config:
    (tmp_path / "bullpen.yaml").write_text(text)
    return config.load(tmp_path)


def test_a_session_runs_where_its_machine_says_and_the_rest_on_the_owner(
        tmp_path: Path) -> None:
    plan = load(tmp_path, PLAN)  # coder waits for research, which runs elsewhere
    on_alpha = place(plan, "alpha", owner="alpha")
    on_beta = place(plan, "beta", owner="alpha")
    assert [p.name for p in on_alpha.here] == ["research", "reviewer"]
    assert [(p.name, m) for p, m in on_alpha.elsewhere] == [("coder", "beta")]
    assert [p.name for p in on_beta.here] == ["coder"]
    assert [(p.name, m) for p, m in on_beta.elsewhere] == [("research", "alpha"),
                                                           ("reviewer", "alpha")]


def test_without_an_owner_unplaced_sessions_run_where_up_runs(tmp_path: Path) -> None:
    plan = load(tmp_path, PLAN)
    assert [p.name for p in place(plan, "gamma", owner=None).here] == ["research"]


def test_a_bad_machine_name_names_its_line(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match=r"bullpen.yaml:4: sessions.coder.machine: invalid"):
        load(tmp_path, "sessions:\n  research: {}\n  coder:\n    machine: Not_A_Name\n")
