"""Hook cost: bullpen's command hook (in its own process, and forwarded to the hook
server) against the interpreter, and the time bullpen's hooks (command, and HTTP to the
hook server) add to each tool call of a real Claude Code turn (`claude -p`, scripted
server) against the same turn without them, in the same run. Claude is used from the test cache when
installed there (`tests/claude_install.py`); otherwise that part says so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import median, scratch_repo, time_command
from board import sessions
from board.room import open_room
from workers.agents import agent_files
from workers.surfaces.hook_server import serving

TOOL_CALLS = 20


def command_hook_cost(repo: Path) -> None:
    """`bullpen hook claude` for one Read, handled in its own process (no coordinator) and
    forwarded to the coordinator's hook server, against `python -c 'import sqlite3'`,
    interleaved in one run so the machine's load hits all three alike."""
    room = open_room(env={}, start=repo)
    token = sessions.register(room.conn, "reader")
    room.close()
    home = repo / ".bullpen"
    env = {**os.environ, "BULLPEN_SESSION": "reader", "BULLPEN_TOKEN": token,
           "BULLPEN_HOME": str(home)}
    bullpen = str(Path(sys.executable).parent / "bullpen")
    payload = json.dumps({"hook_event_name": "PostToolUse", "tool_name": "Read",
                          "tool_input": {"file_path": str(repo / "README.md")},
                          "cwd": str(repo), "session_id": "bench"})

    def hook() -> float:
        started = time.perf_counter()
        subprocess.run([bullpen, "hook", "claude"], input=payload, text=True, env=env,
                       cwd=repo, capture_output=True, check=True)
        return time.perf_counter() - started

    def interpreter() -> float:
        return time_command([sys.executable, "-c", "import sqlite3"], 1)[0]

    runs = 30
    timings: dict[str, list[float]] = {"python": [], "in process": [], "forwarded": []}
    interpreter(), hook()  # warm the file cache
    for _ in range(runs):
        timings["python"].append(interpreter())
        agent_files.forget_hook_port(home)
        timings["in process"].append(hook())
        with serving(home):
            timings["forwarded"].append(hook())
    baseline = median(timings["python"])
    for label in ("in process", "forwarded"):
        cost = median(timings[label])
        print(f"command hook {label} (bullpen hook claude, a Read): {cost * 1000:.1f} ms vs"
              f" python -c 'import sqlite3' {baseline * 1000:.1f} ms -> {cost / baseline:.2f}x"
              " (target <= 1.5x)")


def _claude() -> Path | None:
    cache = Path(os.environ.get("BULLPEN_TEST_CACHE") or "/tmp/bullpen-test-cache")
    found = sorted(cache.glob("claude-code-*/node_modules/.bin/claude"))
    return found[-1] if found else None


def claude_turn(repo: Path) -> None:
    claude = _claude()
    if claude is None:
        print("claude turn: skipped (no Claude Code in the test cache; run the real-client"
              " tests once to install it)")
        return
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.agents.fake_model import FakeAnthropic, Text, ToolCall, tool_results_since_user
    from tests.claude_install import claude_env, claude_home
    from workers.agents import claude as claude_files

    def respond(request: dict):
        step = tool_results_since_user(request)
        return (ToolCall("Read", {"file_path": str(repo / "README.md")})
                if step < TOOL_CALLS else Text("done"))

    room = open_room(env={}, start=repo)
    token = sessions.register(room.conn, "bench")
    room.close()
    home = Path(tempfile.mkdtemp(prefix="bullpen-bench-home-"))
    claude_home(home, trusted=[repo])
    room_home = repo / ".bullpen"
    variants = {
        "without hooks": home / "plain-settings.json",
        "command hooks": claude_files.launch_files(room_home, "bench",
                                                   http_hooks=False).settings,
        "HTTP hooks": claude_files.launch_files(room_home, "bench-http").settings,
    }
    variants["without hooks"].write_text("{}")
    timings: dict[str, list[float]] = {label: [] for label in variants}
    with FakeAnthropic(respond) as model, serving(room_home):
        env = {**os.environ, **claude_env(model.base_url), "HOME": str(home),
               "BULLPEN_HOME": str(room_home), "BULLPEN_SESSION": "bench",
               "BULLPEN_TOKEN": token}
        for _ in range(3):
            for label, settings in variants.items():
                started = time.perf_counter()
                subprocess.run([str(claude), "-p", "read it", "--settings", str(settings),
                                "--allowedTools", "Read"], cwd=repo, env=env,
                               capture_output=True, text=True, timeout=300)
                timings[label].append(time.perf_counter() - started)
    bare = median(timings["without hooks"])
    print(f"claude -p turn of {TOOL_CALLS} Read calls: {bare:.2f} s without bullpen's hooks")
    for label in ("command hooks", "HTTP hooks"):
        added = (median(timings[label]) - bare) / TOOL_CALLS
        print(f"  with bullpen's {label}: {median(timings[label]):.2f} s -> {added * 1000:.1f}"
              " ms added per tool call (target <= 10 ms)")


def main() -> None:
    repo = scratch_repo()
    command_hook_cost(repo)
    claude_turn(repo)
