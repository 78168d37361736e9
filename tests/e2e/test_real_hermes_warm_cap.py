"""The warm cap with the real Hermes Agent (PyPI, both lanes) against the scripted
chat-completions server on 127.0.0.1 (the room of test_real_hermes_room): `max_running:
1`, research then coder. Only one Hermes runs at a time (the panes' process trees sampled
throughout); coder waits for a slot with research's note held for it, starts when
research's task is done and Hermes idle, and its model gets the handoff and the note."""

from __future__ import annotations

import contextlib
import json
import threading
from pathlib import Path

import pytest
import yaml

from tests.agents.fake_model import FakeModel, last_user_text
from tests.e2e.test_real_hermes_room import (  # noqa: F401 - hermes_room is a fixture
    TURN,
    bullpen,
    hermes_room,
    main_requests,
    transcript,
)
from tests.e2e.test_warm_cap import children
from tests.rooms import LiveRoom
from tests.waiting import wait_until
from workers.tmux.layout import COORDINATOR_SESSION
from workers.tmux.server import TmuxError

pytestmark = pytest.mark.slow


def hermes_in_panes(live: LiveRoom) -> set[str]:
    """The panes (by id) whose process tree runs a Hermes process now."""
    try:
        panes = live.server.check("list-panes", "-a", "-F",
                                  "#{session_name} #{pane_id} #{pane_pid}")
    except TmuxError:
        return set()
    found = set()
    for line in panes.splitlines():
        where, pane, pid = line.split()
        if where == COORDINATOR_SESSION:  # bullpen itself, run from Hermes' venv
            continue
        stack = [int(pid)]
        while stack:
            here = stack.pop()
            with contextlib.suppress(OSError):
                argv = Path(f"/proc/{here}/cmdline").read_bytes().decode(
                    errors="replace").split("\0")
                if "hermes" in (Path(word).name for word in argv[:2]):  # python …/bin/hermes
                    found.add(pane)
                    break
            stack += children(here)
    return found


def test_real_hermes_under_max_running_one(
        hermes_room: tuple[LiveRoom, FakeModel, Path]) -> None:  # noqa: F811
    live, model, bin_dir = hermes_room
    plan = {"agent": "hermes", "layout": "windows", "max_running": 1, "sessions": {
        "research": {"task": "Gather the usage data"},
        "coder": {"after": ["research"], "task": "Implement the endpoint"}}}
    (live.repo / "bullpen.yaml").write_text(yaml.safe_dump(plan, sort_keys=False))

    most, stop = [0], threading.Event()

    def sample() -> None:
        while not stop.is_set():
            most[0] = max(most[0], len(hermes_in_panes(live)))
            stop.wait(0.02)
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        shown = bullpen(bin_dir, live, "up", "--detach", "--no-dashboard")
        assert "coder waits for a slot (max_running 1)" in shown, shown
        assert live.sessions()["coder"]["status"] == "waiting for a slot"
        wait_until(lambda: any("research done" in str(e.reply) for e in model.exchanges()),
                   TURN, message=lambda: f"research's turn:\n{transcript(model)}")
        wait_until(lambda: any("coder done" in str(e.reply) for e in model.exchanges()),
                   TURN, message=lambda: f"the plan to reach coder's end:\n{transcript(model)}"
                                         f"\n{live.cli('ls').stdout}")
    finally:
        stop.set()
        sampler.join()
    assert most[0] == 1, most
    coder = main_requests(model, "coder")
    assert any("SUMMARY-R" in last_user_text(r) for r in coder)
    assert any("NOTE-R cache" in json.dumps(r["messages"]) for r in coder)
    with live.db() as conn:
        rows = conn.execute(
            "SELECT d.state, d.possible_repeat FROM deliveries d JOIN notes n ON n.id = d.note"
            " WHERE n.body = 'NOTE-R cache' AND d.recipient = 'coder'").fetchall()
        held = [json.loads(data or "{}").get("reason") for (data,) in conn.execute(
            "SELECT data FROM events WHERE kind = 'notes_held' AND session = 'coder'")]
    assert len(rows) == 1 and rows[0][0] in ("typed", "handed", "read") and not rows[0][1]
    assert "waiting for a slot" in held, held
