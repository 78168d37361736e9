"""The Hermes releases users still pin (hermes-agent 0.17.0 and 0.18.2 from PyPI), real,
in a room through `bullpen up` with `deny:` and a budget, against the scripted
chat-completions server (DESIGN.md "The versions users run").

0.17.0 ignores `approvals.deny`: the launch finds that in the installed source, and
bullpen's own `pre_tool_call` hook (on both; 0.18.2 gets its `approvals.deny` too) blocks
a denied command of a chain before it runs (its first step leaves no marker either).
Both keep their tokens in `state.db`'s `sessions` rows (no
`session_model_usage`): `bullpen spend` must equal what the server reported, and the
budget must hold. Neither is reported as a lever that does not hold.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.agents.fake_model import FakeModel, Reply, Text, ToolCall, last_user_text, session_of
from tests.agents.fake_model import tool_results_since_user as step_of
from tests.hermes_install import offline_hermes
from tests.rooms import LiveRoom, live_room
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

TURN = 180.0  # seconds; a Hermes turn takes ~5 s here
PUBLISH = "touch published.flag && npm publish --tag next"
REFUSED = "bullpen room policy"  # bullpen's own pre_tool_call hook answers, on both


def respond(request: dict) -> Reply:
    """shipper, asked to ship: a chain ending in a publish, then its answer."""
    if session_of(request) != "shipper" or "SHIP-IT" not in last_user_text(request):
        return Text("noted")
    return ToolCall("terminal", {"command": PUBLISH}) if step_of(request) == 0 \
        else Text("shipping refused")


@pytest.fixture(params=["0.17.0", "0.18.2"], ids=lambda version: f"hermes-{version}")
def old_hermes(request: pytest.FixtureRequest, git_repo: Path, tmp_path: Path,
               monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[LiveRoom, FakeModel, str,
                                                                  Path]]:
    version = request.param
    with FakeModel(respond) as model:
        _, root = offline_hermes(tmp_path, monkeypatch, model.base_url, version)
        with live_room(git_repo, tmp_path / "logs") as live:
            yield live, model, version, root


def test_an_old_hermes_never_runs_a_denied_command_and_its_spend_holds_its_budget(
        old_hermes: tuple[LiveRoom, FakeModel, str, Path]) -> None:
    live, model, version, root = old_hermes
    plan = {"agent": "hermes", "layout": "windows", "deny": ["npm publish*"],
            "sessions": {"shipper": {"budget": "100"}}}
    (live.repo / "bullpen.yaml").write_text(yaml.safe_dump(plan, sort_keys=False))
    up = live.cli("up", "--detach", "--no-dashboard").stdout
    assert "not enforced" not in up, up
    live.wait_status("shipper", "idle", timeout=TURN)

    live.cli("note", "send", "shipper", "SHIP-IT: publish")
    done = wait_until(lambda: [e for e in model.exchanges()
                               if e.ended and e.reply == Text("shipping refused")], TURN,
                      message=lambda: f"shipper's turn: {live.pane_text('shipper')}")
    told = [str(m.get("content")) for m in done[0].request["messages"]
            if m.get("role") == "tool"]
    assert len(told) == 1 and REFUSED in told[0], told
    worktree = Path(live.sessions()["shipper"]["worktree"])
    assert not (worktree / "published.flag").exists()
    audited = [e for e in json.loads(live.cli("audit", "--json").stdout)
               if e["action"] == "run command"]
    assert [(e["actor"], e["target"], e["outcome"]) for e in audited] == [
        ("shipper", PUBLISH, "refused")]
    with live.db() as conn:
        profile = conn.execute("SELECT profile FROM sessions WHERE name = 'shipper'"
                               ).fetchone()[0]
    hooks = yaml.safe_load((root / "profiles" / profile / "config.yaml").read_text())["hooks"]
    assert "pre_tool_call" in hooks, hooks

    # Its spend is read from the sessions rows, exactly what the server reported for the
    # conversation (these releases record no side call: the title's tokens are not
    # there), and the 100-token budget holds on it.
    def shipper() -> dict:
        report = json.loads(live.cli("spend", "--json").stdout)
        return next(row for row in report["sessions"] if row["name"] == "shipper")

    def reported() -> dict[str, int]:  # the budget's notice may start one more turn
        found = model.reported()
        return {**found, "total": sum(found.values())}
    row = wait_until(lambda: (r := shipper())["held_for_budget"]
                     and r["tokens"] == reported() and r, TURN,
                     message=lambda: f"spend {shipper()} vs {reported()}")
    assert row["source"] == "hermes state.db" and row["unreadable"] is None
    listed = json.loads(live.cli("ls", "--json").stdout)
    assert [r["levers"] for r in listed if r["name"] == "shipper"] == [[]]
    findings = json.loads(live.cli("doctor", "--json", check=False).stdout)
    assert not [f for f in findings if "not enforced" in f["what"]], findings
