"""Spend and budgets with the real agents, against scripted model servers on 127.0.0.1.

Each answer of the scripted server reports its own token counts (different for every
answer, `tests.agents.fake_model.usage_of`). bullpen reads what each agent recorded —
Claude Code's transcript, Hermes' state.db, Codex's session files — and `bullpen spend
--json` must equal what the server reported, exactly: nothing read from a screen, no
message counted twice.

With Claude, a budget then stops its notes: set at what it has spent, the session gets
one note saying so, a note sent after it waits `held: budget` and never reaches the
model, and raising the budget (audited) lets it through, once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.agents.fake_model import (
    FakeAnthropic,
    FakeModel,
    Reply,
    Text,
    ToolCall,
    all_text,
    answered_tool,
    last_user_text,
    session_of,
)
from tests.agents.fake_responses import FakeResponses, outputs_since_user
from tests.agents.fake_responses import last_user_text as responses_user_text
from tests.codex_install import codex_env, codex_home, install_codex
from tests.e2e.conftest import real_claude_room
from tests.hermes_install import install_beside_hermes
from tests.rooms import LiveRoom, live_room
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

TURN = 120.0
# USD per million tokens for the scripted model, stated in the plan (the table has none)
PRICE = {"input": 3.0, "output": 15.0, "cache_read": 0.3, "cache_write": 3.75}
BUDGET_NOTICE = "budget reached"


def respond(request: dict) -> Reply:
    """A note's turn reads the notebook (one tool call), then answers (whatever system
    messages follow the tool's result)."""
    if answered_tool(request):
        return Text("solo noted")
    return ToolCall("mcp__bullpen__notebook_read", {})


def spend_json(live: LiveRoom) -> dict:
    return json.loads(live.cli("spend", "--json").stdout)


def solo(report: dict) -> dict:
    return next(row for row in report["sessions"] if row["name"] == "solo")


def tokens_of(reported: dict[str, int]) -> dict[str, int]:
    return {**reported, "total": sum(reported.values())}


def cost_of(reported: dict[str, int]) -> float:
    return round(sum(reported[key] * PRICE[key] for key in PRICE) / 1_000_000, 6)


@pytest.fixture
def claude_solo(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                claude_release: str) -> Iterator[tuple[LiveRoom, FakeAnthropic]]:
    with real_claude_room(git_repo, tmp_path / "logs", monkeypatch, claude_release,
                          respond) as (live, model):
        plan = {"agent": "claude", "layout": "windows",
                "prices": {"stub-model": PRICE}, "sessions": {"solo": {}}}
        (live.repo / "bullpen.yaml").write_text(yaml.safe_dump(plan, sort_keys=False))
        live.cli("up", "--detach", "--no-dashboard")
        live.wait_status("solo", "idle", timeout=TURN)
        yield live, model


def test_real_claude_spend_is_the_transcripts_and_a_budget_holds_its_notes(
        claude_solo: tuple[LiveRoom, FakeAnthropic]) -> None:
    live, model = claude_solo
    assert solo(spend_json(live))["known"] is False  # no turn yet: nothing recorded

    live.cli("note", "send", "solo", "FIRST-NOTE look around")
    wait_until(lambda: [e for e in model.exchanges() if e.ended and e.reply == Text(
        "solo noted")], TURN, message=lambda: live.pane_text("solo"))
    live.wait_status("solo", "idle", timeout=TURN)
    reported = model.reported()
    assert reported["cache_write"] and reported["cache_read"]  # every kind is exercised
    row = wait_until(lambda: (r := solo(spend_json(live)))["known"] and r["tokens"] == tokens_of(
        reported) and r, TURN, message=lambda: f"spend {spend_json(live)} vs {reported}")
    assert row["source"] == "claude transcript" and row["models"] == ["stub-model"]
    assert row["cost_usd"] == cost_of(reported)  # the plan's price for the model
    room = spend_json(live)["room"]
    assert room["tokens"] == row["tokens"] and room["cost_usd"] == row["cost_usd"]

    # A budget at what it spent: the one note from bullpen, then every note held.
    live.cli("budget", "solo", str(row["tokens"]["total"]))
    told = wait_until(lambda: [r for r in model.snapshot()
                               if BUDGET_NOTICE in last_user_text(r)], TURN,
                      message=lambda: f"the budget note: {live.pane_text('solo')}")
    assert "bullpen budget solo" in last_user_text(told[0])
    live.wait_status("solo", "idle", timeout=TURN)
    sent = json.loads(live.cli("note", "send", "solo", "HELD-NOTE later", "--json").stdout)

    def held() -> dict | None:
        shown = json.loads(live.cli("note", "show", str(sent["id"]), "--json").stdout)
        delivery = shown["deliveries"][0]
        return delivery if delivery["held_reason"] == "budget" else None
    assert wait_until(held, TURN, message="HELD-NOTE held for the budget")["state"] == "held"
    report = spend_json(live)
    assert solo(report)["held_for_budget"] is True
    assert solo(report)["budget"]["set_by"] == "operator"
    # Spend grew with the notice's turn, and it was told once, not at each new figure.
    wait_until(lambda: solo(spend_json(live))["tokens"] == tokens_of(model.reported()), TURN,
               message="spend after the notice's turn")
    with live.db() as conn:
        notices = conn.execute("SELECT count(*) FROM notes WHERE recipient = 'solo' AND"
                               " body LIKE ?", (f"%{BUDGET_NOTICE}%",)).fetchone()[0]
    assert notices == 1
    assert not any("HELD-NOTE" in all_text(r) for r in model.snapshot())

    # Raised: the held note reaches the model, once; the raise is audited.
    live.cli("budget", "solo", "10M")
    arrived = wait_until(lambda: [r for r in model.snapshot() if "HELD-NOTE" in
                                  last_user_text(r)], TURN,
                         message=lambda: f"HELD-NOTE after the raise: {live.pane_text('solo')}")
    live.wait_status("solo", "idle", timeout=TURN)
    final = model.snapshot()[-1]
    assert json.dumps(final["messages"]).count("HELD-NOTE") == 1, arrived
    assert solo(spend_json(live))["held_for_budget"] is False
    audit = json.loads(live.cli("audit", "--json").stdout)
    assert [(e["action"], e["target"], e["outcome"]) for e in audit
            if e["action"] == "budget"] == [("budget", "solo", "done")] * 2


def hermes_respond(request: dict) -> Reply:
    """One tool call (the notebook), then an answer."""
    if answered_tool(request):
        return Text("solo noted")
    return ToolCall("mcp__bullpen__notebook_read", {})


@pytest.fixture
def hermes_solo(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                hermes_release: str) -> Iterator[tuple[LiveRoom, FakeModel]]:
    bin_dir = install_beside_hermes(hermes_release)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    root = tmp_path / "hermes-home"
    root.mkdir(mode=0o700)
    monkeypatch.setenv("HERMES_HOME", str(root))
    (root / ".update_check").write_text(json.dumps({"ts": 4102444800,
                                                    "latest": hermes_release}))
    with FakeModel(hermes_respond) as model:
        (root / "config.yaml").write_text(yaml.safe_dump({
            "model": {"provider": "custom", "base_url": model.base_url,
                      "default": "stub-model", "context_length": 131072},
            "security": {"tirith_enabled": False}}))
        with live_room(git_repo, tmp_path / "logs") as live:
            plan = {"agent": "hermes", "layout": "windows",
                    "prices": {"stub-model": PRICE}, "sessions": {"solo": {}}}
            (live.repo / "bullpen.yaml").write_text(yaml.safe_dump(plan, sort_keys=False))
            live.cli("up", "--detach", "--no-dashboard")
            live.wait_status("solo", "idle", timeout=TURN)
            yield live, model


def test_real_hermes_spend_is_its_state_db(hermes_solo: tuple[LiveRoom, FakeModel]) -> None:
    live, model = hermes_solo
    live.cli("note", "send", "solo", "FIRST-NOTE look around")
    wait_until(lambda: [e for e in model.exchanges() if e.ended and e.reply == Text(
        "solo noted")], TURN, message=lambda: live.pane_text("solo"))
    live.wait_status("solo", "idle", timeout=TURN)
    assert {session_of(r) for r in model.snapshot()} == {"solo"}
    # Every answer the server gave (the turn's, and Hermes' side calls: its title) is
    # Hermes' to record; bullpen's figure is what Hermes recorded.
    reported = model.reported(with_others=True)
    row = wait_until(lambda: (r := solo(spend_json(live)))["known"] and r["tokens"] == tokens_of(
        reported) and r, TURN, message=lambda: f"spend {spend_json(live)} vs {reported}")
    assert row["source"] == "hermes state.db" and row["models"] == ["stub-model"]
    assert row["cost_usd"] == cost_of(reported)


def codex_respond(request: dict) -> Reply:
    """One tool call (the notebook), then an answer."""
    if outputs_since_user(request) == 0 and "FIRST-NOTE" in responses_user_text(request):
        return ToolCall("mcp__bullpen__notebook_read", {})
    return Text("solo noted")


@pytest.fixture
def codex_solo(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
               codex_release: str) -> Iterator[tuple[LiveRoom, FakeResponses]]:
    bin_dir = install_codex(codex_release)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with FakeResponses(codex_respond) as model:
        for key, value in codex_env(model.port).items():
            monkeypatch.setenv(key, value)
        codex_home(Path(os.environ["HOME"]), model.base_url, trusted=[git_repo])
        with live_room(git_repo, tmp_path / "logs") as live:
            plan = {"agent": "codex", "layout": "windows",
                    "prices": {"stub-model": PRICE}, "sessions": {"solo": {}}}
            (live.repo / "bullpen.yaml").write_text(yaml.safe_dump(plan, sort_keys=False))
            live.cli("up", "--detach", "--no-dashboard")
            live.wait_status("solo", "idle", timeout=TURN)
            yield live, model


def test_real_codex_spend_is_its_session_files(
        codex_solo: tuple[LiveRoom, FakeResponses]) -> None:
    live, model = codex_solo
    live.cli("note", "send", "solo", "FIRST-NOTE look around")
    wait_until(lambda: [e for e in model.exchanges() if e.ended and e.reply == Text(
        "solo noted")], TURN, message=lambda: live.pane_text("solo"))
    live.wait_status("solo", "idle", timeout=TURN)
    sent = model.reported()
    # The Responses API reports no cache writes: they reach Codex as plain input.
    reported = {**sent, "input": sent["input"] + sent["cache_write"], "cache_write": 0}
    row = wait_until(lambda: (r := solo(spend_json(live)))["known"] and r["tokens"] == tokens_of(
        reported) and r, TURN, message=lambda: f"spend {spend_json(live)} vs {reported}")
    assert row["source"] == "codex session files" and row["tokens"]["cache_read"]
    assert row["cost_usd"] == cost_of(reported)
