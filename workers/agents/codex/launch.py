"""Codex CLI integration: how a pane starts it, with bullpen's MCP server.

Codex reads `$CODEX_HOME/config.toml` (default `~/.codex`) and takes any of its keys on
the command line as `-c key=value` (the value in TOML). A bullpen session adds its MCP
server that way, so nothing is written anywhere — not in the worktree, not in the user's
Codex home, and no copy of the user's config or login (`auth.json`) is made: the session
runs with the user's own provider, trust decisions and history.

- `mcp_servers.bullpen`: `bullpen mcp`, with the session's identity variables passed
  through by name (`env_vars`: Codex starts MCP servers with a reduced environment, and
  the token never appears on the command line) and its tools approved up front
  (`default_tools_approval_mode`), so bullpen's own calls never stop at a question.
- `--no-daemon`: Codex 0.16x otherwise starts a shared background app server that
  outlives the pane (and `bullpen down`); in a bullpen pane the session is the pane.

A launch resumes the session's last conversation (`codex resume ID`) unless `fresh`: the
newest conversation Codex keeps under `$CODEX_HOME/sessions/` whose working directory is the
session's worktree and that was active since the session was created — so a new session
reusing an old name never picks up its predecessor's conversation.

Codex has no turn-boundary hook bullpen can rely on (its hooks run only after the user
trusts each one in `/hooks`), so notes are typed at its empty composer, read from the
screen (`workers.agents.codex.screen`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from board.vocabulary import IDENTITY_VARIABLES
from workers.agents.bullpen_command import bullpen_executable
from workers.agents.codex.rules import markers_override
from workers.agents.command_line import split_command, with_flags

SERVER_NAME = "bullpen"
NO_DAEMON = "--no-daemon"


def _toml_string(text: str) -> str:
    """`text` as a TOML basic string."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def mcp_override(executable: str) -> str:
    """The `-c` value that adds bullpen's MCP server to Codex's config."""
    names = ", ".join(_toml_string(name) for name in IDENTITY_VARIABLES)
    return (f"mcp_servers.{SERVER_NAME}={{command = {_toml_string(executable)},"
            f' args = ["mcp"], env_vars = [{names}],'
            f' default_tools_approval_mode = "approve"}}')


def codex_home(env: dict[str, str] | None = None) -> Path:
    """Where Codex keeps its config and conversations: `$CODEX_HOME`, else `~/.codex`."""
    env = dict(os.environ) if env is None else env
    return Path(env.get("CODEX_HOME") or Path(env.get("HOME") or Path.home()) / ".codex")


def rollout_meta(rollout: Path) -> dict | None:
    """The `session_meta` payload on a rollout file's first line (its id, its cwd), or
    None when the file or the line cannot be read."""
    try:
        with rollout.open(encoding="utf-8", errors="replace") as handle:
            meta = json.loads(handle.readline() or "{}")
    except (OSError, ValueError):
        return None
    payload = meta.get("payload") if isinstance(meta, dict) else None
    return payload if isinstance(payload, dict) else None


def _conversation_of(rollout: Path, worktree: Path) -> str | None:
    """The conversation id in a rollout file's first line when it ran in `worktree`."""
    payload = rollout_meta(rollout)
    if payload is None or not payload.get("id") or not payload.get("cwd"):
        return None
    return str(payload["id"]) if Path(str(payload["cwd"])) == worktree else None


def last_conversation(worktree: str | Path, since: float,
                      env: dict[str, str] | None = None) -> str | None:
    """The id of the newest conversation Codex ran in `worktree` and touched at or after
    `since` (epoch seconds), or None."""
    worktree = Path(worktree).resolve()
    found: list[tuple[float, str]] = []
    for rollout in (codex_home(env) / "sessions").glob("*/*/*/rollout-*.jsonl"):
        try:
            touched = rollout.stat().st_mtime
        except OSError:
            continue
        if touched >= since and (conversation := _conversation_of(rollout, worktree)):
            found.append((touched, conversation))
    return max(found)[1] if found else None


def codex_command(agent: str, executable: str | None = None,
                  resume: str | None = None, rules_root: bool = False) -> str:
    """`agent` with bullpen's MCP server and without Codex's background server, resuming
    conversation `resume` when the program has no words of its own (they may be a prompt
    or flags that `codex resume` does not take). The flags follow the program's own
    words, through its wrappers (`env X=1 codex`, `npx @openai/codex`)."""
    executable = executable or bullpen_executable()
    line = split_command(agent)
    own = line.own if line is not None else ()
    flags = ["resume", resume] if resume and line is not None and not own else []
    flags += ["-c", mcp_override(executable)]
    if rules_root:  # the room's command policy: workers.agents.codex.rules
        flags += ["-c", markers_override()]
    if NO_DAEMON not in own:
        flags.append(NO_DAEMON)
    return with_flags(agent, flags)
