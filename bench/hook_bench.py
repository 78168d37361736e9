"""Hook cost: bullpen's command hook (in its own process, and forwarded to the hook
server) against the interpreter, and the time bullpen's hooks (command, and HTTP to the
hook server) add to each tool call of a real Claude Code turn (`claude -p`, scripted
server) against the same turn without them, in the same run. Claude is used from the test cache when
installed there (`tests/claude_install.py`); otherwise that part says so.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from bench.common import is_quick, median, quick, ratio_spread, scratch_repo, time_command
from bench.figures import record
from board import reads, sessions
from board.identity import hook_key
from board.room import open_room
from workers.agents import agent_files
from workers.surfaces.hook_server import serving

TOOL_CALLS = quick(20, 3)
# Interleaved claude -p runs per variant: one turn varies by ±0.5 s here (±25 ms per call).
CLAUDE_RUNS = quick(7, 1)


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

    runs = quick(30, 5)
    held = "in process, the store open elsewhere"
    timings: dict[str, list[float]] = {"python": [], "in process": [], held: [],
                                       "forwarded": []}
    interpreter(), hook()  # warm the file cache
    for _ in range(runs):
        timings["python"].append(interpreter())
        agent_files.forget_hook_port(home)
        timings["in process"].append(hook())
        # As when a dashboard holds the store: the hook's connection is not the last one,
        # so SQLite neither makes the write-ahead log anew nor checkpoints it on close.
        other = sqlite3.connect(home / "bullpen.db")
        other.execute("SELECT count(*) FROM sessions").fetchone()
        timings[held].append(hook())
        other.close()
        with serving(home):
            timings["forwarded"].append(hook())
    baseline = median(timings["python"])
    for label in ("in process", held, "forwarded"):
        cost = median(timings[label])
        print(f"command hook {label} (bullpen hook claude, a Read): {cost * 1000:.1f} ms vs"
              f" python -c 'import sqlite3' {baseline * 1000:.1f} ms ->"
              f" {ratio_spread(timings[label], timings['python'])} (target <= 1.5x)")
        record(f"command hook {label}", f"{cost * 1000:.1f} ms",
               f"python -c 'import sqlite3' {baseline * 1000:.1f} ms", cost / baseline,
               "<= 1.5x", cost / baseline <= 1.5)


def _claude() -> Path | None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.hermes_install import cache_dir  # the real-client tests' install cache

    found = sorted(cache_dir().glob("claude-code-*/node_modules/.bin/claude"))
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
    from workers.agents.claude import settings as claude_files

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
        "HTTP per-tool hook only": home / "per-tool-settings.json",
    }
    variants["without hooks"].write_text("{}")
    # The per-tool hook alone: the turn's command hooks (SessionStart, UserPromptSubmit,
    # Stop: three processes per turn) are a cost per turn, not per tool call.
    every = json.loads(variants["HTTP hooks"].read_text())
    variants["HTTP per-tool hook only"].write_text(json.dumps(
        {"hooks": {"PostToolUse": every["hooks"]["PostToolUse"]}}))
    timings: dict[str, list[float]] = {label: [] for label in variants}
    with FakeAnthropic(respond) as model, serving(room_home):
        env = {**os.environ, **claude_env(model.base_url), "HOME": str(home),
               "BULLPEN_HOME": str(room_home), "BULLPEN_SESSION": "bench",
               "BULLPEN_TOKEN": token, "BULLPEN_HOOK_KEY": hook_key(token)}
        for _ in range(CLAUDE_RUNS):
            for label, settings in variants.items():
                started = time.perf_counter()
                subprocess.run([str(claude), "-p", "read it", "--settings", str(settings),
                                "--allowedTools", "Read"], cwd=repo, env=env,
                               capture_output=True, text=True, timeout=300)
                timings[label].append(time.perf_counter() - started)
    bare = median(timings["without hooks"])
    with open_room(env={}, start=repo) as room:  # the hooks really worked
        recorded = room.conn.execute("SELECT count(*) FROM reads WHERE session = 'bench'"
                                     " AND source = 'hook'").fetchone()[0]
    print(f"claude -p turn of {TOOL_CALLS} Read calls: {bare:.2f} s without bullpen's hooks"
          f" (reads recorded by the hooks over all runs: {recorded})")
    for label in ("command hooks", "HTTP hooks", "HTTP per-tool hook only"):
        added = (median(timings[label]) - bare) / TOOL_CALLS
        print(f"  with bullpen's {label}: {median(timings[label]):.2f} s -> {added * 1000:.1f}"
              " ms added per tool call (target <= 10 ms)")
        record(f"claude turn, {label}: added per tool call", f"{added * 1000:.1f} ms",
               f"the turn without hooks {bare:.2f} s", None, "<= 10 ms", added <= 0.010)


def hermes_turn(repo: Path) -> None:
    """A `hermes chat -q` turn of TOOL_CALLS read_file calls: a profile with bullpen's
    hooks (and not its MCP server, whose start-up is not a hook's cost) against the same
    profile without them, with the hooks handled in process and forwarded to the hook
    server."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.agents.fake_model import FakeModel, Text, ToolCall, last_user_text
    from tests.hermes_install import cache_dir
    from workers.agents.hermes import profile as hermes_profile

    # tests/hermes_install.py's venvs (hermes-bullpen-<version>-<checkout hash>; older
    # caches named them hermes-venv-<version>): any one holds a real hermes.
    found = sorted([*cache_dir().glob("hermes-bullpen-*/bin/hermes"),
                    *cache_dir().glob("hermes-venv-*/bin/hermes")])
    if not found:
        print("hermes turn: skipped (no Hermes in the test cache; run the real-client tests"
              " once to install it)")
        return

    def respond(request: dict):
        if last_user_text(request).lstrip().startswith("Review the conversation"):
            return Text("Nothing to save.")
        step = sum(1 for message in request.get("messages", []) if message.get("role") == "tool")
        return ToolCall("read_file", {"path": "README.md"}) if step < TOOL_CALLS else Text("done")

    room = open_room(env={}, start=repo)
    token = sessions.register(room.conn, "hermes-bench")
    room.close()
    room_home = repo / ".bullpen"
    root = Path(tempfile.mkdtemp(prefix="bullpen-bench-hermes-"))
    (root / ".update_check").write_text(json.dumps({"ts": 4102444800, "latest": "0"}))
    timings: dict[str, list[float]] = {"without hooks": [], "hooks in process": [],
                                       "hooks forwarded": []}
    with FakeModel(respond) as model:
        plain = {"model": {"provider": "custom", "base_url": model.base_url,
                           "default": "stub-model", "context_length": 131072},
                 "security": {"tirith_enabled": False}}
        hooked = hermes_profile.with_bullpen(plain, str(Path(sys.executable).parent / "bullpen"))
        hooked.pop("mcp_servers", None)
        for name, config in (("plain", plain), ("hooked", hooked)):
            directory = root / "profiles" / name
            directory.mkdir(parents=True)
            (directory / "config.yaml").write_text(yaml.safe_dump(config))
        env = {**os.environ, "HERMES_HOME": str(root), "HERMES_ACCEPT_HOOKS": "1",
               "BULLPEN_HOME": str(room_home), "BULLPEN_SESSION": "hermes-bench",
               "BULLPEN_TOKEN": token}

        def turn(profile: str) -> float:
            started = time.perf_counter()
            subprocess.run([str(found[-1]), "-p", profile, "chat", "-q", "read it", "-Q",
                            "--accept-hooks"], cwd=repo, env=env, capture_output=True,
                           text=True, timeout=300)
            return time.perf_counter() - started

        for _ in range(3):
            timings["without hooks"].append(turn("plain"))
            agent_files.forget_hook_port(room_home)
            timings["hooks in process"].append(turn("hooked"))
            with serving(room_home):
                timings["hooks forwarded"].append(turn("hooked"))
    with open_room(env={}, start=repo) as room:
        recorded = reads.of_session(room.conn, "hermes-bench")
    bare = median(timings["without hooks"])
    spread = max(timings["without hooks"]) - min(timings["without hooks"])
    print(f"hermes chat -q turn of {TOOL_CALLS} read_file calls: {bare:.2f} s without"
          f" bullpen's hooks (spread of its runs {spread:.2f} s, i.e."
          f" {spread / TOOL_CALLS * 1000:.0f} ms per call of noise; reads recorded with"
          f" them: {[path for path, _ in recorded]})")
    for label in ("hooks in process", "hooks forwarded"):
        added = (median(timings[label]) - bare) / TOOL_CALLS
        print(f"  with bullpen's {label}: {median(timings[label]):.2f} s -> {added * 1000:.1f}"
              " ms added per tool call")


def main() -> None:
    repo = scratch_repo()
    command_hook_cost(repo)
    if is_quick():  # a real agent's turns take minutes: not for a developer's loop
        print("claude and hermes turns: skipped in a --quick run")
        return
    claude_turn(repo)
    hermes_turn(repo)
