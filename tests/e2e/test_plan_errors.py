"""Bad plans: one clear line naming file, line and key; exit 2; nothing started."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from workers.tmux.server import RoomServer, socket_name_for

pytestmark = pytest.mark.slow

BAD_PLANS = {
    "cycle": ("""\
sessions:
  research:
    after: [review]
  coder:
    after: [research]
  review:
    after: [coder]
""", "bullpen.yaml:3: sessions.research.after: a cycle: research -> review -> coder"),
    "unknown-after": ("""\
sessions:
  research:
    task: gather
  coder:
    after: [reseach]
""", "bullpen.yaml:5: sessions.coder.after: unknown session 'reseach'"),
    "unknown-on-commit": ("""\
sessions:
  coder:
    task: build
  reviewer:
    task: review
    on_commit: codr
""", "bullpen.yaml:6: sessions.reviewer.on_commit: unknown session 'codr'"),
    "shared-profile": ("""\
sessions:
  coder:
    profile: work
  reviewer:
    profile: work
""", "bullpen.yaml:5: sessions.reviewer.profile: profile 'work' is already used by"
     " session 'coder'"),
    "malformed-yaml": ("""\
sessions:
  research:
    task: gather: the data
""", "bullpen.yaml:3: sessions.research.task: not valid YAML"),
    "unclosed-list": ("""\
sessions:
  research:
    task: gather
  coder:
    after: [research
    task: build
""", "bullpen.yaml:5: sessions.coder.after: not valid YAML"),
    # Each of these was `unexpected …`, exit 1 (or, for a duplicate key, silently the last).
    "duplicate-key": ("""\
agent: sleep 100
sessions:
  a:
    task: one
  b:
    task: two
  a:
    task: three
""", "bullpen.yaml:7: sessions.a: duplicate key"),
    "duplicate-top-key": ("agent: one\nagent: two\n", "bullpen.yaml:2: agent: duplicate key"),
    "unhashable-key": ("sessions: {? [a,b] : {}}\n",
                       "bullpen.yaml:1: sessions: a key must be a plain name"),
    "deep-nesting": ("sessions:\n  a:\n    task: " + "[" * 10_000 + "]" * 10_000 + "\n",
                     "bullpen.yaml:3: sessions.a.task: nested deeper than 50 levels"),
    "control-character": ("sessions:\n  a:\n    task: x\x01y\n",
                          "bullpen.yaml:3: sessions.a.task: not valid YAML: character"
                          " '\\x01' is not allowed"),
    "tab-indented-key": ("sessions:\n  sh1:\n    task: hi\n  py:\n\tagent: python3\n",
                         "bullpen.yaml:5: sessions.py.agent: not valid YAML"),
    "tab-after-a-value": ("sessions:\n  py:\n    agent: cat\n\ttask: x\n",
                          "bullpen.yaml:4: sessions.py.task: not valid YAML"),
    # up takes no --agent: the fix it names is the plan's
    "agent-not-installed": ("sessions:\n  py:\n    agent: no-such-agent\n",
                            "'no-such-agent' is not installed or not on PATH; install it,"
                            " or set sessions.py.agent (or agent:) in bullpen.yaml\n"),
}


@pytest.mark.parametrize("case", sorted(BAD_PLANS))
def test_a_bad_plan_is_one_line_exit_2_and_starts_nothing(git_repo: Path, case: str) -> None:
    text, expected = BAD_PLANS[case]
    (git_repo / "bullpen.yaml").write_text(text)

    result = run_cli("up", "--detach", "--no-dashboard", cwd=git_repo)

    assert result.returncode == 2, result
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"bullpen: {expected}"), result.stderr
    assert not RoomServer(socket_name_for(git_repo)).is_alive()
    assert started_sessions(git_repo) == []
    assert not (git_repo / ".bullpen" / "worktrees").exists() or not any(
        (git_repo / ".bullpen" / "worktrees").iterdir())


def started_sessions(repo: Path) -> list[str]:
    """Sessions in the room's store (none when it was never created)."""
    db = repo / ".bullpen" / "bullpen.db"
    if not db.exists():
        return []
    with sqlite3.connect(db) as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if "sessions" not in tables:
            return []
        return [row[0] for row in conn.execute("SELECT name FROM sessions")]
