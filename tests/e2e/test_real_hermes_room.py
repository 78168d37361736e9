"""Real Hermes Agent (PyPI hermes-agent[mcp] 0.19.0) in a room started by `bullpen up`,
coordinator running, against a scripted chat-completions server on 127.0.0.1.

bullpen runs from the same venv as Hermes (pip resolved both: Hermes pins mcp 1.26), so
the panes, the hooks, the MCP server and the coordinator all use that one install. HOME
and HERMES_HOME are temp dirs; nothing reaches the network. The default profile holds a
literal `model.api_key`, as Hermes' own custom-endpoint set-up writes it.

One room of three Hermes sessions runs research -> code -> review and shows: the four
promises; Hermes' background review agent (made to run after every turn) firing with no
note lost to it and no turn cut short, while a note sent during a busy turn reaches the
next one; a restart resuming the conversation; the secret in no file bullpen wrote, yet
reaching the model server; the profile's modes private.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.agents.fake_model import (
    COMMIT,
    READY,
    FakeModel,
    Reply,
    Text,
    ToolCall,
    all_text,
    coder_turn,
    last_user_text,
    research_turn,
    session_of,
)
from tests.conftest import git
from tests.hermes_install import install_beside_hermes
from tests.rooms import LiveRoom, live_room
from tests.waiting import wait_until
from workers.agents.hermes.profile import auto_profile_name
from workers.agents.spread import version_key

pytestmark = pytest.mark.slow

TURN = 180.0  # seconds; a Hermes turn takes ~5 s here, CI machines are slower
SECRET = "sk-literal-SECRET-4f2a9c"
REVIEW = "Review the conversation above"


def is_review(request: dict) -> bool:
    return last_user_text(request).lstrip().startswith(REVIEW)


def turn_results(request: dict) -> int:
    """Tool results since the last user message (the step within the turn)."""
    count = 0
    for message in reversed(request.get("messages", [])):
        if message.get("role") == "user":
            break
        count += message.get("role") == "tool"
    return count


def respond(request: dict) -> Reply:
    """Each session's script, by its worktree and the text of its turn."""
    if is_review(request):
        return Text("Nothing to save.")
    who, text, step = session_of(request), last_user_text(request), turn_results(request)
    ready = READY.search(text)
    if who == "research" and ready:
        return research_turn(int(ready.group(1)), step)
    if who == "coder" and ready:
        return coder_turn(request, int(ready.group(1)), step,
                          read=ToolCall("read_file", {"path": "src/app.py"}),
                          commit=ToolCall("terminal", {"command": COMMIT}))
    return Text(f"{who} noted")


def model_config(base_url: str) -> dict:
    return {"model": {"provider": "custom", "base_url": base_url, "default": "stub-model",
                      "context_length": 131072, "api_key": SECRET},
            "security": {"tirith_enabled": False},
            "memory": {"nudge_interval": 1}}  # the review agent runs after every turn


@pytest.fixture
def hermes_room(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                hermes_release: str) -> Iterator[tuple[LiveRoom, FakeModel, Path]]:
    bin_dir = install_beside_hermes(hermes_release)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    root = tmp_path / "hermes-home"
    root.mkdir(mode=0o700)
    monkeypatch.setenv("HERMES_HOME", str(root))
    (root / ".update_check").write_text(json.dumps({"ts": 4102444800,
                                                    "latest": hermes_release}))
    with FakeModel(respond) as model:
        config = root / "config.yaml"
        config.write_text(yaml.safe_dump(model_config(model.base_url)))
        config.chmod(0o600)
        with live_room(git_repo, tmp_path / "logs") as live:
            yield live, model, bin_dir


def bullpen(bin_dir: Path, live: LiveRoom, *args: str) -> str:
    """`bullpen ARGS` from the venv it shares with Hermes."""
    done = subprocess.run([str(bin_dir / "bullpen"), *args], cwd=live.repo,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"bullpen {' '.join(args)}: {done.stderr}"
    return done.stdout


def main_requests(model: FakeModel, who: str) -> list[dict]:
    return [r for r in model.snapshot() if session_of(r) == who and not is_review(r)]


def transcript(model: FakeModel) -> str:
    return "\n".join(f"{session_of(e.request)}{' (review)' if is_review(e.request) else ''}:"
                     f" {e.reply} <- {str(e.request['messages'][-1].get('content'))[:160]}"
                     for e in model.exchanges())


@pytest.mark.spread  # the smoke subset ./dev spread runs on every listed release
def test_real_hermes_room_keeps_every_promise(
        hermes_room: tuple[LiveRoom, FakeModel, Path], hermes_release: str) -> None:
    live, model, bin_dir = hermes_room
    plan = {"agent": "hermes", "layout": "windows", "sessions": {
        "research": {"task": "Gather the usage data"},
        "coder": {"after": ["research"], "task": "Implement the endpoint"},
        "reviewer": {"on_commit": "coder", "task": "Review each commit"}}}
    (live.repo / "bullpen.yaml").write_text(yaml.safe_dump(plan, sort_keys=False))
    bullpen(bin_dir, live, "up", "--detach", "--no-dashboard")

    # Promises 4, 1, 2: the plan runs; coder sees research's summary, its shared entry
    # but not its private one, and answers research's note by its id.
    wait_until(lambda: any("coder done" in str(e.reply) for e in model.exchanges()), TURN,
               message=lambda: f"the plan to reach coder's end:\n{transcript(model)}")
    coder = main_requests(model, "coder")
    assert any("SUMMARY-R" in last_user_text(r) for r in coder)
    shown = [m.get("content") or "" for m in coder[-1]["messages"] if m.get("role") == "tool"]
    read_result = next(text for text in shown if "SHARED-R" in text)
    assert "PRIVATE-R" not in read_result
    with live.db() as conn:
        noted = conn.execute("SELECT id FROM notes WHERE body = 'NOTE-R cache'").fetchone()[0]
        assert conn.execute("SELECT reply_to FROM notes WHERE sender = 'coder' AND"
                            " recipient = 'research'").fetchone()[0] == noted
        assert "src/app.py" in [row[0] for row in conn.execute(
            "SELECT path FROM reads WHERE session = 'coder' AND source = 'hook'")]
    wait_until(lambda: any(session_of(r) == "reviewer" and "committed" in last_user_text(r)
                           for r in model.snapshot()), TURN,
               message=lambda: f"reviewer pinged with the commit:\n{transcript(model)}")

    # Promise 3: research's worktree changes the file coder read; the alert reaches coder.
    live.wait_status("coder", "idle", timeout=TURN)
    research_tree = Path(live.sessions()["research"]["worktree"])
    (research_tree / "src" / "app.py").write_text("def handler():\n    return 'v2'\n")
    wait_until(lambda: any("src/app.py" in last_user_text(r) and "alert" in last_user_text(r)
                           for r in main_requests(model, "coder")), TURN,
               message=lambda: f"the alert in coder's turn:\n{transcript(model)}")

    # The review agent: coder's next turn is held busy, a note arrives, the turn ends and
    # the review starts (held too) — the note goes to coder's next turn, not the review.
    live.wait_status("coder", "idle", timeout=TURN)
    reviews_before = sum(1 for r in model.snapshot() if is_review(r))
    model.hold(lambda r: session_of(r) == "coder")
    bullpen(bin_dir, live, "note", "send", "coder", "FIRST start the long job")
    wait_until(lambda: model.waiting() >= 1, TURN, message="coder's held turn")
    bullpen(bin_dir, live, "note", "send", "coder", "BUSY-NOTE for later")
    model.hold(lambda r: session_of(r) == "coder" and is_review(r))  # the turn ends
    busy = wait_until(lambda: [r for r in main_requests(model, "coder")
                               if "BUSY-NOTE" in last_user_text(r)], TURN,
                      message=lambda: f"BUSY-NOTE in coder's next turn:\n{transcript(model)}")
    assert busy
    model.release()
    wait_until(lambda: sum(1 for r in model.snapshot() if is_review(r)) > reviews_before,
               TURN, message="the review agent to run")
    assert not any("BUSY-NOTE" in last_user_text(r) for r in model.snapshot() if is_review(r))
    wait_until(lambda: model.waiting() == 0, TURN, message="every answer to be streamed")
    cut = [exchange.reply for exchange in model.exchanges() if not exchange.finished]
    assert cut == []  # no turn was cut short: every answer reached the agent whole
    assert "Interrupted" not in live.pane_text("coder")

    # A restart resumes: coder's next request still holds the handoff from before.
    live.wait_status("coder", "idle", timeout=TURN)
    bullpen(bin_dir, live, "restart", "coder")
    before = len(main_requests(model, "coder"))
    bullpen(bin_dir, live, "note", "send", "coder", "AFTER-RESTART carry on")
    resumed = wait_until(lambda: main_requests(model, "coder")[before:], TURN,
                         message=lambda: f"coder after restart: {live.pane_text('coder')}")
    assert "SUMMARY-R" in all_text(resumed[0]) and "AFTER-RESTART" in all_text(resumed[0])
    # The handoff came through a hook. 0.19 keeps what a hook added to a turn in its
    # state.db, so the resume holds it and nothing is repeated; 0.17 and 0.18 keep only
    # the typed lines, so bullpen hands it again, marked.
    again = "again after a restart" in all_text(resumed[0])
    assert again == (version_key(hermes_release) < (0, 19)), all_text(resumed[0])[-3000:]

    # The secret reached the model, and no file bullpen wrote holds it; modes private.
    assert all(exchange.credential == f"Bearer {SECRET}" for exchange in model.exchanges())
    hermes_home = Path(os.environ["HERMES_HOME"])
    holders = [path for base in (live.home, hermes_home / "profiles") for path in
               base.rglob("*") if path.is_file() and not path.is_symlink()
               and SECRET.encode() in path.read_bytes()]
    assert holders == []
    for name in ("research", "coder", "reviewer"):
        profile = hermes_home / "profiles" / auto_profile_name(name, live.repo)
        assert stat.S_IMODE(profile.stat().st_mode) == 0o700
        assert stat.S_IMODE((profile / "config.yaml").stat().st_mode) == 0o600
        status = git(Path(live.sessions()[name]["worktree"]), "status", "--porcelain",
                     "--ignored", "--untracked-files=all")
        assert {line[3:] for line in status.splitlines()} <= {"src/app.py"}, (name, status)
