"""A real Hermes Agent in a bullpen pane, against a scripted model server on 127.0.0.1.

It shows, with hermes-agent's own code doing the work: a read recorded through the
`post_tool_call` hook, an MCP tool call landing in the store, status going idle after the
turn (`on_session_end`), and a note reaching the model's next request through
`pre_llm_call`. Hermes is installed once into a cached venv; the test is skipped, with
the reason, only when that install fails.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from board import notebook, notes, reads, sessions
from board.identity import Caller
from board.models import OPERATOR
from board.room import Room
from tests.agents.fake_model import (
    FakeModel,
    Reply,
    Text,
    ToolCall,
    last_user_text,
    mcp_tool_named,
    tool_results_since_user,
)
from tests.hermes_install import install_beside_hermes
from tests.waiting import wait_for_text, wait_until

READY = "Type your message"
TURN_SECONDS = 90  # generous: a turn takes ~5-10 s here, CI machines are slower

pytestmark = pytest.mark.slow


def respond(request: dict) -> Reply:
    """The model's script: the first turn reads a file, calls a bullpen tool, answers;
    any later turn just answers."""
    if "start the survey" not in last_user_text(request):
        return Text("noted, carrying on")
    step = tool_results_since_user(request)
    if step == 0:
        return ToolCall("read_file", {"path": "src/app.py"})
    if step == 1:
        return ToolCall("mcp__bullpen__notebook_write",
                        {"text": "survey: handler returns v1", "tag": "survey"})
    return Text("survey done")


@pytest.fixture
def hermes_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                hermes_release: str) -> Iterator[Path]:
    """A throwaway Hermes root whose default profile talks to nothing but 127.0.0.1."""
    bin_dir = install_beside_hermes(hermes_release)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    root = tmp_path / "hermes-home"
    root.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(root))
    # A far-future update check stops the network call; no tirith stops a download.
    (root / ".update_check").write_text(json.dumps({"ts": 4102444800, "latest": hermes_release}))
    yield root


def _idle_since(room: Room, name: str, moment: float) -> bool:
    session = sessions.get(room.conn, name)
    return bool(session and session.hook_status == "idle"
                and (session.hook_status_at or 0) > moment)


def model_config(base_url: str) -> str:
    return yaml.safe_dump({
        "model": {"provider": "custom", "base_url": base_url, "default": "stub-model",
                  "context_length": 131072},
        "security": {"tirith_enabled": False},
    })


def test_real_hermes_reads_calls_mcp_goes_idle_and_gets_notes(
        room: Room, git_repo: Path, hermes_home: Path) -> None:
    from workers.agents.hermes import profile as hermes_profile
    from workers.room import spawn
    from workers.tmux import layout
    from workers.tmux.keyboard import type_line

    with FakeModel(respond) as model:
        (hermes_home / "config.yaml").write_text(model_config(model.base_url))
        plan = hermes_profile.prepare_profile(hermes_profile.AUTO, "scout", hermes_home)
        hermes_profile.apply_plan(plan)
        server = layout.server_for(git_repo)
        try:
            session = spawn.spawn(room.home, spawn.SpawnRequest(
                name="scout", agent="hermes", profile=plan.profile), server=server,
                with_dashboard=False)
            pane = session.pane or ""
            wait_for_text(lambda: server.capture(pane), READY, timeout=TURN_SECONDS)

            type_line(server, pane, "start the survey of src/app.py")
            read = wait_until(lambda: reads.of_session(room.conn, "scout"), TURN_SECONDS,
                              message="a read recorded by the post_tool_call hook")
            assert [path for path, _ in read] == ["src/app.py"]
            assert {row[0] for row in room.conn.execute(
                "SELECT source FROM reads WHERE session = 'scout'")} == {"hook"}
            entries = wait_until(lambda: notebook.read(room.conn, Caller("scout"), "scout"),
                                 TURN_SECONDS, message="the MCP notebook_write call")
            assert [(e.author, e.body, e.tag) for e in entries] == [
                ("scout", "survey: handler returns v1", "survey")]
            wait_until(lambda: sessions.get(room.conn, "scout").hook_status == "idle",
                       TURN_SECONDS, message="idle reported by on_session_end")
            wait_for_text(lambda: server.capture(pane), "survey done", timeout=TURN_SECONDS)
            tool_results = [m.get("content") or "" for m in model.snapshot()[-1]["messages"]
                            if m.get("role") == "tool"]
            assert mcp_tool_named(tool_results[-1], "bullpen", "notebook_write")
            assert "survey: handler returns v1" in tool_results[-1]  # the MCP result came back

            note = notes.send(room.conn, Caller(OPERATOR), "scout", "NOTE-7: use the v2 API")
            type_line(server, pane, "carry on")
            with_note = wait_until(
                lambda: [r for r in model.snapshot() if "NOTE-7" in json.dumps(r)],
                TURN_SECONDS, message="the note in the model's next request")
            user_text = last_user_text(with_note[0])
            assert (f"[bullpen note {note.id} from operator]\n    NOTE-7: use the v2 API"
                    in user_text)
            assert notes.delivery_state(room.conn, note.id, "scout") == "handed"
            seen_at = time.time()
            wait_until(lambda: _idle_since(room, "scout", seen_at), TURN_SECONDS,
                       message="idle reported again after the second turn")
        finally:
            server.kill_server()
