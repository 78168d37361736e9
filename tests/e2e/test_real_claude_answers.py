"""Real Claude Code's permission prompt answered through `bullpen answer`, never by itself.

Claude runs in its manual permission mode (`--permission-mode default`: 2.1.332's auto
mode decides most prompts itself), in a room started by `bullpen up`, against a scripted
Anthropic server whose Bash calls touch files outside the worktree, so every one asks.
"Yes" through `bullpen answer` runs the tool (the file exists, the server gets its
result); "No" does not; an answer to a question the human already answered in the pane,
now replaced by the next one, is refused (exit 2) and types nothing: the next question
is still there, unanswered. A session may not answer, and every answer is audited.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.agents.fake_model import FakeAnthropic, Reply, Text, ToolCall, session_of
from tests.cli_runner import identity
from tests.e2e.conftest import real_claude_room
from tests.e2e.test_real_claude import press, turn_text, type_text
from tests.rooms import LiveRoom
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

TURN = 120.0
ASKS = ("ASK-YES", "ASK-NO", "ASK-STALE")


def flag(out: Path, name: str) -> Path:
    return out / f"{name}.flag"


def scripted(out: Path):  # noqa: ANN201 - the server's responder
    def respond(request: dict) -> Reply:
        text = turn_text(request)
        # The turn after a "No" holds the refused one too: the last marker typed counts.
        marker = max(ASKS, key=text.rfind)
        if session_of(request) != "asker" or marker not in text:
            return Text("ready")
        # ASK-STALE asks twice: the human answers the first in the pane, the second stays.
        # (The files say how far a script got: Claude may send a refused call's result
        # and the next prompt in one message.)
        wanted = [marker] if marker != "ASK-STALE" else ["STALE-1", "STALE-2"]
        left = [name for name in wanted if not flag(out, name).exists()]
        if left:
            return ToolCall("Bash", {"command": f"touch {flag(out, left[0])}",
                                     "description": f"mark {left[0]}"})
        return Text(f"{marker} over")
    return respond


@pytest.fixture
def asker(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
          claude_release: str) -> Iterator[tuple[LiveRoom, FakeAnthropic, Path]]:
    out = tmp_path / "out"
    out.mkdir()
    with real_claude_room(git_repo, tmp_path / "logs", monkeypatch, claude_release,
                          scripted(out)) as (live, model):
        config = {"agent": "claude", "layout": "windows",
                  "sessions": {"asker": {"agent": "claude --permission-mode default"}}}
        (live.repo / "bullpen.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
        live.cli("up", "--detach", "--no-dashboard")
        live.wait_status("asker", "idle", timeout=TURN)
        yield live, model, out


def question(live: LiveRoom, *, changed_from: str | None = None) -> dict:
    """asker's question as `bullpen questions --json` lists it (once it is on screen)."""
    def listed() -> dict | None:
        rows = json.loads(live.cli("questions", "--json").stdout)
        row = next((row for row in rows if row["session"] == "asker"), None)
        return row if row and row["choices"] and row["id"] != changed_from else None
    return wait_until(listed, TURN, message=lambda: f"asker's question: "
                                                    f"{live.pane_text('asker')}")


def test_real_claude_permission_prompt_answered_yes_no_and_stale_refused(
        asker: tuple[LiveRoom, FakeAnthropic, Path]) -> None:
    live, model, out = asker

    # "Yes": the tool runs, and the server gets the command's result.
    type_text(live, "asker", "ASK-YES please")
    asked = question(live)
    assert "Do you want to proceed?" in asked["question"]
    assert any(str(flag(out, "ASK-YES")) in line for line in asked["context"])
    labels = [choice["label"] for choice in asked["choices"]]
    assert labels[0] == "Yes" and labels[-1] == "No"
    # A session may not answer (not another's question, nor its own).
    token = json.loads(live.cli("register", "intruder", "--json").stdout)["token"]
    refused = live.cli("answer", "asker", "Yes", "--question", asked["id"], check=False,
                       env=identity(live.home, "intruder", token))
    assert refused.returncode == 2 and "only the human" in refused.stderr
    done = live.cli("answer", "asker", "Yes", "--question", asked["id"])
    assert f"question {asked['id']}" in done.stdout
    wait_until(lambda: flag(out, "ASK-YES").exists(), TURN,
               message=lambda: f"the tool to run: {live.pane_text('asker')}")
    wait_until(lambda: any("ASK-YES over" in str(e.reply) for e in model.exchanges()), TURN,
               message=lambda: f"the turn to end: {live.pane_text('asker')}")
    live.wait_status("asker", "idle", timeout=TURN)

    # "No": the tool does not run.
    type_text(live, "asker", "ASK-NO please")
    asked = question(live)
    live.cli("answer", "asker", "No", "--question", asked["id"])
    live.wait_status("asker", "idle", timeout=TURN)
    assert not flag(out, "ASK-NO").exists()
    assert not any("ASK-NO over" in str(e.reply) for e in model.exchanges())

    # Stale: the human answers the first question in the pane (Enter: its "Yes"); the
    # next question replaces it; the answer meant for the first is refused, untyped.
    type_text(live, "asker", "ASK-STALE please")
    first = question(live)
    press(live, "asker", "Enter")
    wait_until(lambda: flag(out, "STALE-1").exists(), TURN,
               message=lambda: f"the pane's own answer: {live.pane_text('asker')}")
    second = question(live, changed_from=first["id"])
    stale = live.cli("answer", "asker", "No", "--question", first["id"], check=False)
    assert stale.returncode == 2, stale
    assert "the question changed" in stale.stderr and "Traceback" not in stale.stderr
    again = question(live)  # nothing typed: the same question, the selector unmoved
    assert (again["id"], again["selected"]) == (second["id"], second["selected"])
    assert live.sessions()["asker"]["status"] == "needs_input"
    assert not flag(out, "STALE-2").exists()
    unknown = live.cli("answer", "asker", "1", "--question", "00000000", check=False)
    assert unknown.returncode == 2
    live.cli("answer", "asker", "No", "--question", second["id"])
    live.wait_status("asker", "idle", timeout=TURN)
    assert not flag(out, "STALE-2").exists()

    # Each answer and each refusal is in the audit: who, which question, which choice.
    trail = [entry for entry in json.loads(live.cli("audit", "--json").stdout)
             if entry["action"] == "answer"]
    outcomes = [(entry["actor"], entry["outcome"]) for entry in trail]
    assert outcomes == [("intruder", "refused"), ("operator", "done"), ("operator", "done"),
                        ("operator", "refused"), ("operator", "refused"),
                        ("operator", "done")], trail
    assert f"question {asked['id']}" in trail[2]["detail"] and "No" in trail[2]["detail"]
    assert first["id"] in trail[3]["detail"]
