"""MCP: a tool call round trip on a live `bullpen mcp` against the same CLI command run as a
whole process, and the server's start-up, measured in the same run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from bench.common import describe, median, quick, ratio_spread, scratch_repo, time_command
from bench.figures import record
from board import chains, sessions
from board.room import open_room

RUNS = quick(40, 8)
BULLPEN = str(Path(sys.executable).parent / "bullpen")


async def _mcp_times(env: dict[str, str], cwd: Path, runs: int) -> tuple[float, list[float]]:
    """(start-up + initialize seconds, per-call seconds) for `send_note` over MCP."""
    params = StdioServerParameters(command=BULLPEN, args=["mcp"], env=env, cwd=str(cwd))
    started = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        startup = time.perf_counter() - started
        times = []
        for index in range(runs):
            began = time.perf_counter()
            result = await client.call_tool("send_note", {"to": "bob", "text": f"mcp {index}"})
            times.append(time.perf_counter() - began)
            assert not result.is_error, result.content
    return startup, times


STARTS = quick(10, 3)
INITIALIZE = (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"}}}) + "\n").encode()


def _start_and_initialize(env: dict[str, str], cwd: Path) -> float:
    """Seconds from starting `bullpen mcp` to its answer to `initialize`, read straight
    off its stdout (no SDK client in between)."""
    started = time.perf_counter()
    server = subprocess.Popen([BULLPEN, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              env=env, cwd=cwd)
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(INITIALIZE)
    server.stdin.flush()
    answer = server.stdout.readline()
    elapsed = time.perf_counter() - started
    server.stdin.close()
    server.wait(timeout=30)
    assert b'"result"' in answer, answer
    return elapsed


def main() -> None:
    repo = scratch_repo()
    with open_room(env={}, start=repo) as room:
        chains.set_limits(room.conn, chains.Limits(notes=None, rate=None))  # alice sends a lot
        token = sessions.register(room.conn, "alice")
        sessions.register(room.conn, "bob")
        home = room.home
    env = {**os.environ, "BULLPEN_HOME": str(home), "BULLPEN_SESSION": "alice",
           "BULLPEN_TOKEN": token}
    cli = time_command([BULLPEN, "note", "send", "bob", "cli note"], RUNS // 4, env=env,
                       cwd=repo)
    # The CLI repeats one text (after the first run, a deduplicated send: less work);
    # the MCP calls each store a new note, so the ratio errs against MCP.
    startup, calls = anyio.run(_mcp_times, env, repo, RUNS)
    floor = time_command([sys.executable, "-c", "import sqlite3"], RUNS // 4)
    starts: list[float] = []
    bare: list[float] = []
    for _ in range(STARTS):  # interleaved with the interpreter: the load hits both alike
        bare += time_command([sys.executable, "-c", "import sqlite3"], 1)
        starts.append(_start_and_initialize(env, repo))
    print(f"python -c 'import sqlite3'     {describe(floor)}")
    print(f"bullpen note send (process)    {describe(cli)}")
    print(f"MCP send_note round trip       {describe(calls)}")
    print(f"MCP server start + initialize  {median(starts) * 1000:.1f} ms, median of"
          f" {STARTS} (target <= 400 ms; {ratio_spread(starts, bare)} the interpreter's"
          f" start; through the SDK's client: {startup * 1000:.1f} ms)")
    record("MCP server start + initialize", f"{median(starts) * 1000:.1f} ms",
           f"python -c 'import sqlite3' {median(bare) * 1000:.1f} ms",
           median(starts) / median(bare), "<= 400 ms", median(starts) <= 0.4)
    print(f"ratio CLI process / MCP call: {median(cli) / median(calls):.1f}x"
          f" (MCP call / interpreter start: {median(calls) / median(floor):.2f}x)")
