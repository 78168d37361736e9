"""Real Claude Code's permission prompt answered "No" from the dashboard, by its keys.

The room runs through `bullpen up` with the real dashboard in its tmux window; Claude (in
its manual permission mode, against a scripted Anthropic server) asks to run a Bash call
that touches a file outside its worktree. The human, at the dashboard, focuses the
needs-you strip (`g`), opens the question (`a`: its context and numbered choices) and
presses the digit of "No": the tool does not run, the turn ends without the tool's
result reaching the model, and the audit has the operator's answer with its choice.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.agents.fake_model import FakeAnthropic, Reply, Text, ToolCall, session_of
from tests.e2e.conftest import real_claude_room
from tests.e2e.test_real_claude import turn_text, type_text
from tests.rooms import LiveRoom
from tests.waiting import wait_until
from workers.tmux.layout import DASHBOARD, pane_of

pytestmark = pytest.mark.slow

TURN = 120.0
MARKER = "ASK-DASH-NO"
FOLLOW_UP = "WHAT-NOW"


def scripted(flag: Path):  # noqa: ANN201 - the server's responder
    def respond(request: dict) -> Reply:
        text = turn_text(request)
        if session_of(request) != "asker" or MARKER not in text:
            return Text("ready")
        if FOLLOW_UP in text:
            return Text(f"{FOLLOW_UP} seen")
        if "tool_result" not in text:
            return ToolCall("Bash", {"command": f"touch {flag}",
                                     "description": "mark the flag"})
        return Text(f"{MARKER} over")
    return respond


@pytest.fixture
def dashboard_room(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                   claude_release: str) -> Iterator[tuple[LiveRoom, FakeAnthropic, Path]]:
    flag = tmp_path / "out" / f"{MARKER}.flag"  # outside the worktree: Claude asks
    flag.parent.mkdir()
    with real_claude_room(git_repo, tmp_path / "logs", monkeypatch, claude_release,
                          scripted(flag)) as (live, model):
        config = {"agent": "claude", "layout": "windows",
                  "sessions": {"asker": {"agent": "claude --permission-mode default"}}}
        (live.repo / "bullpen.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
        live.cli("up", "--detach")  # with the dashboard, in the room's tmux
        live.wait_status("asker", "idle", timeout=TURN)
        yield live, model, flag


def test_real_claude_permission_prompt_answered_no_from_the_dashboard_keys(
        dashboard_room: tuple[LiveRoom, FakeAnthropic, Path]) -> None:
    live, model, flag = dashboard_room
    dashboard = pane_of(live.server, DASHBOARD)

    def screen() -> str:
        return live.server.capture(dashboard)

    def keys(*pressed: str) -> None:
        live.server.check("send-keys", "-t", dashboard, *pressed)

    type_text(live, "asker", f"{MARKER} please")
    asked = wait_until(lambda: next((row for row in json.loads(
        live.cli("questions", "--json").stdout) if row["session"] == "asker"
        and row["choices"]), None), TURN,
        message=lambda: f"asker's question: {live.pane_text('asker')}")
    no = next(choice["number"] for choice in asked["choices"] if choice["label"] == "No")
    wait_until(lambda: "needs input" in screen() and "asker" in screen(), 30,
               message=lambda: f"the needs-you strip:\n{screen()}")

    keys("g")  # the needs-you strip takes focus, its cursor on asker's question
    wait_until(lambda: "Answer" in screen(), 10,  # its footer offers `a`
               message=lambda: f"the strip focused:\n{screen()}")
    keys("a")
    wait_until(lambda: "asker asks" in screen() and "Do you want to proceed?" in screen()
               and f"{no}  No" in screen(), 30,
               message=lambda: f"the answer window:\n{screen()}")
    # The command it asks about, among its context lines (cut at the window's width).
    assert "mark the flag" in screen() and "│ touch /tmp/" in screen()
    keys(str(no))
    wait_until(lambda: "answered asker" in screen(), 30,
               message=lambda: f"the answer confirmed:\n{screen()}")

    live.wait_status("asker", "idle", timeout=TURN)
    assert not flag.exists()  # the tool did not run
    # The server asked for the tool once and got nothing back for it: the turn ended at
    # the refusal. The human's next prompt carries it: the call refused, never run.
    assert [exchange.reply for exchange in model.exchanges() if MARKER in json.dumps(
        exchange.request)] == [ToolCall("Bash", {"command": f"touch {flag}",
                                                 "description": "mark the flag"})]
    type_text(live, "asker", f"{FOLLOW_UP} then")
    follow_up = wait_until(lambda: next((exchange.request for exchange in model.exchanges()
                                         if FOLLOW_UP in json.dumps(exchange.request)), None),
                           TURN, message=lambda: f"the next turn: {live.pane_text('asker')}")
    results = [part for message in follow_up["messages"]
               if isinstance(message.get("content"), list)
               for part in message["content"] if part.get("type") == "tool_result"]
    assert len(results) == 1 and results[0]["is_error"] is True, results
    assert "doesn't want to proceed" in json.dumps(results[0]), results
    assert not flag.exists()

    trail = [entry for entry in json.loads(live.cli("audit", "--json").stdout)
             if entry["action"] == "answer"]
    assert [(entry["actor"], entry["outcome"]) for entry in trail] == [
        ("operator", "done")], trail
    assert f"question {asked['id']}" in trail[0]["detail"] and "No" in trail[0]["detail"]
