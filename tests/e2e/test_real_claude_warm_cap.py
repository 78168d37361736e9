"""The warm cap with the real Claude Code (npm, both lanes) against the scripted Anthropic
server on 127.0.0.1: `max_running: 1`, research then coder. Only one Claude runs at a
time (its pane's process tree sampled throughout); coder waits for a slot with research's
note held for it, starts when research's task is done and Claude is idle, and its model
is given research's note once and its handoff."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.agents.fake_model import (
    READY,
    FakeAnthropic,
    Reply,
    Text,
    ToolCall,
    all_text,
    research_turn,
    session_of,
)
from tests.e2e.conftest import real_claude_room
from tests.e2e.test_real_claude import TURN, room_logs, transcript, turn_calls, turn_text
from tests.e2e.test_warm_cap import children
from tests.rooms import LiveRoom
from tests.waiting import wait_until
from workers.tmux import layout
from workers.tmux.server import TmuxError

pytestmark = pytest.mark.slow


def respond(request: dict) -> Reply:
    """Research claims, notes coder and finishes (research_turn); coder claims and
    finishes; anything else is acknowledged."""
    step = len(turn_calls(request))
    who, text = session_of(request), turn_text(request)
    ready = READY.search(text)
    if who == "research" and ready:
        return research_turn(int(ready.group(1)), step)
    if who == "coder" and ready:
        task = int(ready.group(1))
        return [ToolCall("mcp__bullpen__task_claim", {"id": task}),
                ToolCall("mcp__bullpen__task_done", {"id": task, "summary": "SUMMARY-C"}),
                Text("coder done")][min(step, 2)]
    return Text(f"{who} noted")


@pytest.fixture
def claude_room(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                claude_release: str) -> Iterator[tuple[LiveRoom, FakeAnthropic]]:
    with real_claude_room(git_repo, tmp_path / "logs", monkeypatch, claude_release,
                          respond) as room:
        yield room


def claudes_in_panes(live: LiveRoom) -> set[str]:
    """The sessions' panes (by id) whose process tree runs a Claude Code process now.
    Only session panes count: the coordinator's own (its tmux session) runs a short
    `claude --version` when it learns a session's agent version, which is no agent."""
    try:
        panes = live.server.check("list-panes", "-a", "-F",
                                  "#{pane_id} #{pane_pid} #{session_name}")
    except TmuxError:
        return set()
    found = set()
    for line in panes.splitlines():
        pane, pid, tmux_session = line.split()
        if tmux_session == layout.COORDINATOR_SESSION:
            continue
        stack = [int(pid)]
        while stack:
            here = stack.pop()
            with contextlib.suppress(OSError):
                if "claude" in Path(f"/proc/{here}/cmdline").read_bytes().decode(
                        errors="replace"):
                    found.add(pane)
                    break
            stack += children(here)
    return found


def test_real_claude_under_max_running_one(
        claude_room: tuple[LiveRoom, FakeAnthropic]) -> None:
    live, model = claude_room
    config = {"agent": "claude", "layout": "windows", "max_running": 1, "sessions": {
        "research": {"task": "Gather the usage data"},
        "coder": {"after": ["research"], "task": "Implement the endpoint"}}}
    (live.repo / "bullpen.yaml").write_text(yaml.safe_dump(config, sort_keys=False))

    most, stop = [0], threading.Event()

    def sample() -> None:
        while not stop.is_set():
            most[0] = max(most[0], len(claudes_in_panes(live)))
            stop.wait(0.02)
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        shown = live.cli("up", "--detach", "--no-dashboard").stdout
        assert "coder waits for a slot (max_running 1)" in shown, shown
        assert live.sessions()["coder"]["status"] == "waiting for a slot"

        wait_until(lambda: any("research done" in str(e.reply) for e in model.exchanges()),
                   TURN, message=lambda: f"research's turn: {transcript(model)}"
                                         f"{room_logs(live)}")
        coder = wait_until(lambda: [r for r in model.snapshot() if session_of(r) == "coder"
                                    and "SUMMARY-R" in all_text(r)], TURN,
                           message=lambda: f"coder's handoff: {live.cli('ls').stdout}"
                                           f"{room_logs(live)}")
        wait_until(lambda: any("coder done" in str(e.reply) for e in model.exchanges()),
                   TURN, message=lambda: f"coder's turn: {transcript(model)}")
    finally:
        stop.set()
        sampler.join()
    assert most[0] == 1, most
    assert "Handoff from research" in all_text(coder[0])
    rows = live.db().execute(
        "SELECT d.state, d.possible_repeat, d.via FROM deliveries d JOIN notes n"
        " ON n.id = d.note WHERE n.body = 'NOTE-R cache' AND d.recipient = 'coder'"
        ).fetchall()
    assert len(rows) == 1 and rows[0][0] in ("typed", "handed") and not rows[0][1], rows
    given = [r for r in model.snapshot() if session_of(r) == "coder"
             and "NOTE-R cache" in turn_text(r)]
    assert given, transcript(model)  # research's note reached coder's model
    held = [json.loads(data or "{}").get("reason") for (data,) in live.db().execute(
        "SELECT data FROM events WHERE kind = 'notes_held' AND session = 'coder'")]
    assert "waiting for a slot" in held, held  # research's note waited with coder
