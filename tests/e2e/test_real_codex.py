"""Real Codex CLI (npm, pinned) in a room started by `bullpen up`, coordinator running,
against a scripted OpenAI Responses server on 127.0.0.1. HOME (and so CODEX_HOME) is a
temp dir; anything Codex tries to reach outside 127.0.0.1 goes to a proxy that refuses it.

One Codex session shows, with Codex's own code doing the work: a note typed at its empty
composer reaches the model, which answers it by id through bullpen's MCP server (the
session's identity reaching the server, no approval asked); a note sent while Codex is
busy reaching its next turn without cutting the running one short (every answer streamed
whole, no "Conversation interrupted"); an approval question seen as `needs_input` and Esc
bringing it back to `idle`; nothing of bullpen's in `git status`; the network never
reached (the proxy refused only Codex's start-up announcement fetch); and a restart
resuming the conversation.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.agents.fake_model import Reply, Text, ToolCall, all_text
from tests.agents.fake_responses import FakeResponses, last_user_text, outputs_since_user
from tests.codex_install import codex_env, codex_home, install_codex
from tests.conftest import git
from tests.rooms import LiveRoom, live_room
from tests.waiting import wait_for_text, wait_until

pytestmark = pytest.mark.slow

TURN = 120.0  # seconds; a turn takes about a second here, CI machines are slower
NOTE = re.compile(r"note #(\d+) from operator\] NOTE-1")
ABORTED = "<turn_aborted>"  # what Codex tells the model after a turn was cut short
ANNOUNCEMENT = "raw.githubusercontent.com:443"  # fetched at every start, no switch for it


def respond(request: dict) -> Reply:
    """The coder's script, chosen from the last prompt and the step within its turn."""
    text, step = last_user_text(request), outputs_since_user(request)
    note = NOTE.search(text)
    if note:
        script = [ToolCall("mcp__bullpen__send_note",
                           {"to": "peer", "text": "ACK-1", "reply_to": int(note.group(1))}),
                  ToolCall("mcp__bullpen__notebook_write", {"text": "CODEX-ENTRY"}),
                  Text("note answered")]
        return script[min(step, 2)]
    if "make the flag" in text and step == 0:
        return ToolCall("exec_command", {"cmd": "touch build.flag",
                                         "sandbox_permissions": "require_escalated",
                                         "justification": "Create the build flag?"})
    return Text(f"done: {text[-30:]}")


@pytest.fixture
def codex_room(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
               codex_release: str) -> Iterator[tuple[LiveRoom, FakeResponses]]:
    """A repository whose `coder` session runs the real `codex` against the server."""
    bin_dir = install_codex(codex_release)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with FakeResponses(respond) as model:
        for key, value in codex_env(model.port).items():
            monkeypatch.setenv(key, value)
        codex_home(Path(os.environ["HOME"]), model.base_url, trusted=[git_repo])
        with live_room(git_repo, tmp_path / "logs") as live:
            yield live, model


def turn_of(request: dict) -> str:
    """The turn a Codex request belongs to (from the metadata Codex sends with it)."""
    return str((request.get("client_metadata") or {}).get("root_turn_id"))


def type_text(live: LiveRoom, name: str, text: str) -> None:
    """The human types `text` into `name`'s pane and, once Codex shows it in its
    composer, presses Enter (Codex takes an Enter hard on the heels of fast keystrokes
    as part of a paste: a newline, not a submit)."""
    pane = live.sessions()[name]["pane"]
    live.server.run("send-keys", "-t", pane, "-l", text)
    wait_for_text(lambda: live.server.capture(pane), f"› {text}", timeout=TURN)
    live.server.run("send-keys", "-t", pane, "Enter")


def transcript(model: FakeResponses) -> str:
    """Each exchange as `reply <- last input item`, for failure messages."""
    return "\n".join(f"{exchange.reply} <- {json.dumps(exchange.request['input'][-1])[:200]}"
                     for exchange in model.exchanges())


def room_logs(live: LiveRoom) -> str:
    """The room's coordinator logs and Codex's own log lines about MCP, for failures."""
    logs = sorted((live.home / "logs").glob("*.log"))
    text = "".join(f"\n--- {log.name}\n{log.read_text()[-3000:]}" for log in logs)
    database = Path(os.environ["HOME"]) / ".codex" / "logs_2.sqlite"
    if database.exists():
        with sqlite3.connect(database) as conn:
            rows = conn.execute("SELECT feedback_log_body FROM logs").fetchall()
        text += "\n--- codex\n" + "\n".join(
            str(row[0])[-400:] for row in rows if "MCP server" in str(row[0]))[-4000:]
    return text


@pytest.mark.spread  # the smoke subset ./dev spread runs on every listed release
def test_real_codex_session_in_a_room(codex_room: tuple[LiveRoom, FakeResponses]) -> None:
    live, model = codex_room
    config = {"agent": "codex", "layout": "windows",
              "sessions": {"coder": {}, "peer": {"agent": live.agent("peer"),
                                                 "deliver": "type"}}}
    (live.repo / "bullpen.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    live.cli("up", "--detach", "--no-dashboard")
    live.wait_status("coder", "idle", timeout=TURN)

    # A note typed at the empty composer reaches the model, which answers it by its id
    # through bullpen's MCP server, as `coder`, without an approval question.
    live.cli("note", "send", "coder", "NOTE-1 please acknowledge")
    wait_until(lambda: any("note answered" in str(e.reply) for e in model.exchanges()), TURN,
               message=lambda: f"coder's turn: {live.pane_text('coder')}\n{transcript(model)}"
                               f"{room_logs(live)}")
    with live.db() as conn:
        noted = conn.execute("SELECT id FROM notes WHERE body LIKE 'NOTE-1%'").fetchone()
        reply = conn.execute("SELECT sender, reply_to FROM notes WHERE body = 'ACK-1'"
                             ).fetchone()
        entry = conn.execute("SELECT author FROM notebook WHERE body = 'CODEX-ENTRY'"
                             ).fetchone()
    assert reply is not None and tuple(reply) == ("coder", noted[0])
    assert entry is not None and entry[0] == "coder"
    live.wait_for_line("peer", "ACK-1", timeout=TURN)
    # The three requests of that turn (note, two tool results) carry one turn id.
    note_turn = [r for r in model.snapshot() if NOTE.search(last_user_text(r))]
    assert len(note_turn) == 3 and len({turn_of(r) for r in note_turn}) == 1

    # A note sent while Codex is busy waits for its next turn; the running turn is not
    # cut short (every answer streamed whole) and Codex never reports an interruption.
    live.wait_status("coder", "idle", timeout=TURN)
    model.hold()
    type_text(live, "coder", "work on the long job")
    wait_until(lambda: model.waiting() == 1, TURN, message="coder's held request")
    held = len(model.exchanges())
    live.cli("note", "send", "coder", "BUSY-NOTE for later")
    live.wait_status("coder", "working", timeout=TURN)
    assert "BUSY-NOTE" not in live.pane_text("coder")  # nothing typed into a running turn
    model.release()
    late = wait_until(lambda: [i for i, r in enumerate(model.snapshot())
                               if "BUSY-NOTE" in all_text(r)], TURN,
                      message=lambda: f"BUSY-NOTE in a request: {live.pane_text('coder')}")
    assert late[0] >= held  # only in requests after the held one was answered
    # ...and in a turn of its own, not steered into the running one (Codex names each
    # request's turn in its client metadata).
    first = model.snapshot()[late[0]]
    assert "BUSY-NOTE" in last_user_text(first)
    assert turn_of(first) != turn_of(model.snapshot()[held - 1])
    # Every answer reached Codex whole (`finished` is set once the last event is written;
    # a stream Codex hung up on stays unfinished for good).
    live.wait_status("coder", "idle", timeout=TURN)
    wait_until(lambda: all(exchange.finished for exchange in model.exchanges()), 10.0,
               message=lambda: f"answers cut short: {transcript(model)}")
    assert not any(ABORTED in json.dumps(request["input"]) for request in model.snapshot())

    # An approval question is needs_input; Esc refuses it and the session is idle again.
    type_text(live, "coder", "make the flag")
    live.wait_status("coder", "needs_input", timeout=TURN)
    assert "Would you like to run the following command?" in live.pane_text("coder")
    live.server.run("send-keys", "-t", live.sessions()["coder"]["pane"], "Escape")
    live.wait_status("coder", "idle", timeout=TURN)
    worktree = Path(live.sessions()["coder"]["worktree"])
    assert not (worktree / "build.flag").exists()

    # Nothing of bullpen's in the worktree, nothing written into the user's Codex home
    # but Codex's own state, and nothing but the announcement fetch tried to leave.
    assert git(worktree, "status", "--porcelain", "--ignored") == ""
    assert "bullpen" not in (Path(os.environ["HOME"]) / ".codex" / "config.toml").read_text()
    assert set(model.refused) <= {ANNOUNCEMENT}, model.refused

    # A restart resumes the conversation: the next request still holds the first note.
    live.cli("restart", "coder")
    live.wait_status("coder", "idle", timeout=TURN)
    before = len(model.exchanges())
    live.cli("note", "send", "coder", "AFTER-RESTART carry on")
    resumed = wait_until(lambda: model.snapshot()[before:], TURN,
                         message=lambda: f"coder after restart: {live.pane_text('coder')}")
    assert "AFTER-RESTART" in all_text(resumed[0]) and "NOTE-1" in all_text(resumed[0])
