"""What bullpen keeps about one session's agent, outside the worktree: `.bullpen/agents/NAME/`.

The agent's own conversation id (so a restart resumes it), the id of the turn the
session itself is running (so a Hermes side agent's hook calls can be told apart), and
the Claude Code settings and MCP files that launch passes with `--settings` and
`--mcp-config`. Nothing here lives in the worktree, so nothing of bullpen's can be
committed from it. Stdlib only: the hook process imports this on every call.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

AGENTS_DIR = "agents"
CONVERSATION = "conversation"  # the agent's conversation/session id, for resuming
MAIN_TURN = "main-turn"  # Hermes: task id of the turn the session itself runs
QUESTION = "question"  # Claude: what its permission prompt asks, while it asks
MCP = "mcp"  # "waiting <time>" from launch, "connected <time>" once bullpen mcp listed tools
MCP_WAIT = 30.0  # seconds a note waits for the agent's bullpen MCP server, at most


def agent_dir(home: Path, session: str) -> Path:
    """`.bullpen/agents/<session>/` (made on first use, private to the user)."""
    directory = home / AGENTS_DIR / session
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    return directory


def read_value(home: Path, session: str, key: str) -> str | None:
    """One stored value, or None when it was never written."""
    try:
        value = (home / AGENTS_DIR / session / key).read_text().strip()
    except OSError:
        return None
    return value or None


def write_value(home: Path, session: str, key: str, value: str) -> None:
    """Store one value atomically (a hook and a launch may race)."""
    target = agent_dir(home, session) / key
    staged = target.with_name(f".{key}.{os.getpid()}")
    staged.write_text(value + "\n")
    staged.replace(target)


def forget(home: Path, session: str, key: str) -> None:
    """Drop one value (`--fresh`: the next launch starts a new conversation)."""
    (home / AGENTS_DIR / session / key).unlink(missing_ok=True)


def mark_mcp_waiting(home: Path, session: str) -> None:
    """A launch whose agent gets bullpen's MCP server: notes wait until it connected."""
    write_value(home, session, MCP, f"waiting {time.time():.3f}")


def mark_mcp_connected(home: Path, session: str) -> None:
    """`bullpen mcp` gave the agent its tools: a note may now ask the model to use them."""
    write_value(home, session, MCP, f"connected {time.time():.3f}")


def mcp_connecting(home: Path, session: str, now: float | None = None) -> bool:
    """True while the session's agent was launched with bullpen's MCP server, the server
    has not listed its tools yet, and MCP_WAIT has not passed (a server that never
    connects must not hold notes for good)."""
    state, _, since = (read_value(home, session, MCP) or "").partition(" ")
    try:
        started = float(since)
    except ValueError:
        return False
    return state == "waiting" and (now if now is not None else time.time()) - started < MCP_WAIT


# The port the coordinator serves agents' hooks on (127.0.0.1), in the room's home. It is
# kept across coordinator restarts, so an agent launched with the hook URL still reaches
# the next coordinator; a launch that finds none reserves one for the coordinator to take.
HOOK_PORT = "hooks.port"


def hook_port(home: Path) -> int | None:
    """The room's recorded hook port, or None."""
    try:
        port = int((home / HOOK_PORT).read_text().strip())
    except (OSError, ValueError):
        return None
    return port if 0 < port < 65536 else None


def record_hook_port(home: Path, port: int) -> None:
    """Record the port the room's hooks are served on (atomically: launches read it)."""
    staged = home / f".{HOOK_PORT}.{os.getpid()}"
    staged.write_text(f"{port}\n")
    staged.replace(home / HOOK_PORT)


def reserve_hook_port(home: Path) -> int:
    """The recorded hook port, or a free one, recorded now for the coordinator to bind."""
    port = hook_port(home)
    if port is None:
        import socket

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        record_hook_port(home, port)
    return port


def forget_hook_port(home: Path) -> None:
    """Drop the recorded hook port (the next coordinator or launch picks a new one)."""
    (home / HOOK_PORT).unlink(missing_ok=True)
