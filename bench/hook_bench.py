"""Hook cost: bullpen's command hook against the interpreter, and the time bullpen's hooks
add to each tool call of a real Claude Code turn (`claude -p`, scripted server) against
the same turn without them, in the same run. Claude is used from the test cache when
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

TOOL_CALLS = 20


def command_hook_cost(repo: Path) -> None:
    room = open_room(env={}, start=repo)
    token = sessions.register(room.conn, "reader")
    room.close()
    env = {**os.environ, "BULLPEN_SESSION": "reader", "BULLPEN_TOKEN": token,
           "BULLPEN_HOME": str(repo / ".bullpen")}
    bullpen = str(Path(sys.executable).parent / "bullpen")
    payload = json.dumps({"hook_event_name": "PostToolUse", "tool_name": "Read",
                          "tool_input": {"file_path": str(repo / "README.md")},
                          "cwd": str(repo), "session_id": "bench"})
    runs = 20
    time_command([sys.executable, "-c", "import sqlite3"], 3)
    baseline = median(time_command([sys.executable, "-c", "import sqlite3"], runs))
    cost = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([bullpen, "hook", "claude"], input=payload, text=True, env=env,
                       cwd=repo, capture_output=True, check=True)
        cost.append(time.perf_counter() - started)
    hook = median(cost)
    print(f"command hook (bullpen hook claude, a Read): {hook * 1000:.1f} ms vs python -c"
          f" 'import sqlite3' {baseline * 1000:.1f} ms -> {hook / baseline:.2f}x"
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
    files = claude_files.launch_files(repo / ".bullpen", "bench")
    plain = home / "plain-settings.json"
    plain.write_text("{}")
    with FakeAnthropic(respond) as model:
        env = {**os.environ, **claude_env(model.base_url), "HOME": str(home),
               "BULLPEN_HOME": str(repo / ".bullpen"), "BULLPEN_SESSION": "bench",
               "BULLPEN_TOKEN": token}
        timings: dict[str, list[float]] = {"without hooks": [], "with bullpen's hooks": []}
        for _ in range(3):
            for label, settings in (("without hooks", plain),
                                    ("with bullpen's hooks", files.settings)):
                started = time.perf_counter()
                subprocess.run([str(claude), "-p", "read it", "--settings", str(settings),
                                "--allowedTools", "Read"], cwd=repo, env=env,
                               capture_output=True, text=True, timeout=300)
                timings[label].append(time.perf_counter() - started)
    bare, hooked = (median(timings[label]) for label in timings)
    added = (hooked - bare) / TOOL_CALLS
    print(f"claude -p turn of {TOOL_CALLS} Read calls: {bare:.2f} s without hooks,"
          f" {hooked:.2f} s with bullpen's command hooks -> {added * 1000:.1f} ms added per"
          " tool call (target <= 10 ms with HTTP hooks, not built yet)")


def main() -> None:
    repo = scratch_repo()
    command_hook_cost(repo)
    claude_turn(repo)
