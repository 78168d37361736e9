"""A release of an agent whose screen bullpen does not know: never silent.

A stand-in installed as `claude` says it is Claude Code 9.9.9 and draws a screen no
release bullpen knows has drawn (no `❯` input box, no spinner, no dialog), as a future
release might. Through `bullpen up` with the dashboard: the session records its version,
stays `unknown` with a reason naming that version and the tested ones, the reason heads
the needs-you strip, `doctor` names it, and a note to it waits instead of being typed.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.rooms import live_room
from tests.waiting import wait_until
from workers.agents.claude.adapter import ClaudeAdapter
from workers.tmux.layout import DASHBOARD, pane_of

pytestmark = pytest.mark.slow

STARTUP = 30.0  # workers/coordinator/status.py: a new pane's time to show its prompt
FUTURE = """#!/usr/bin/env python3
import sys, time
if "--version" in sys.argv:
    print("9.9.9 (Claude Code)")
    raise SystemExit(0)
print("Claude Code v9.9.9 -- a screen bullpen has never seen")
print("")
print("  ask me anything  >>")
sys.stdout.flush()
for line in sys.stdin:  # whatever reaches it is kept, to show nothing was typed
    with open(sys.argv[0] + ".typed", "a") as typed:
        typed.write(line)
"""


def test_an_agent_whose_screen_is_unknown_is_unknown_naming_its_version(
        git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    claude = bin_dir / "claude"
    claude.write_text(FUTURE)
    claude.chmod(claude.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    (git_repo / "bullpen.yaml").write_text("sessions:\n  future:\n    agent: claude\n")
    with live_room(git_repo, tmp_path / "logs") as room:
        room.cli("up", "--detach")
        tested = ", ".join(ClaudeAdapter.tested_versions)
        reason = f"bullpen cannot read claude 9.9.9's screen; notes wait — tested: {tested}"
        row = wait_until(lambda: (row := room.sessions()["future"])["reason"] == reason
                         and row, STARTUP + 30,
                         message=lambda: f"the reason in ls --json: {room.sessions()}")
        assert row["status"] == "unknown" and row["agent_version"] == "9.9.9"

        dashboard = pane_of(room.server, DASHBOARD)
        wait_until(lambda: "cannot read claude 9.9.9" in room.server.capture(dashboard), 20,
                   message=lambda: f"the strip:\n{room.server.capture(dashboard)}")
        strip = room.server.capture(dashboard)
        assert strip.index("unreadable") < strip.index("cannot read claude 9.9.9")

        doctor = room.cli("doctor", check=False)
        assert doctor.returncode == 1, doctor
        assert "future: claude 9.9.9, whose screen bullpen cannot read" in doctor.stdout

        room.cli("note", "send", "future", "NOT-FOR-A-SCREEN-I-CANNOT-READ")

        def delivery() -> tuple[str, str] | None:
            with room.db() as conn:
                row = conn.execute("SELECT d.state, d.held_reason FROM deliveries d"
                                   " JOIN notes n ON n.id = d.note WHERE n.body LIKE"
                                   " 'NOT-FOR-A-SCREEN%'").fetchone()
            return tuple(row) if row and row[0] == "held" else None
        assert wait_until(delivery, 20, message="the note to be held") == (
            "held", "state unknown")
        assert not Path(f"{claude}.typed").exists()  # nothing reached the program
