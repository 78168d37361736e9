"""Claude Code integration: hook settings, the MCP server entry, and how a pane starts it.

A bullpen session writes nothing into its worktree: `launch_files` puts the settings
(hooks, and permission for bullpen's own MCP tools) and the MCP config under
`.bullpen/agents/<session>/`, and `claude_command` passes them with Claude's `--settings`
and `--mcp-config` flags, plus `--resume ID` when the session's last conversation is on
disk (recorded by its SessionStart hook), so a restart carries on where it was.

`write_settings` is for a Claude started outside bullpen (`bullpen hooks claude`): it
merges into the checkout's `.claude/settings.local.json` and `.mcp.json`, keeping every
key it does not own; running it again replaces bullpen's own entries.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from board.errors import BadInput
from board.records import record
from board.vocabulary import IDENTITY_VARIABLES, IdentityVariable
from workers.agents import agent_files
from workers.agents.bullpen_command import bullpen_executable
from workers.agents.claude import transcript as claude_transcript
from workers.agents.command_line import with_flags

SETTINGS_PATH = Path(".claude") / "settings.local.json"
MCP_PATH = Path(".mcp.json")
SERVER_NAME = "bullpen"
READ_MATCHER = "Read|Grep|Edit|Write"
# Tools whose input names files read (Bash: its command text is parsed for reads).
LAUNCH_READ_MATCHER = "Read|Grep|Glob|Edit|MultiEdit|Write|NotebookEdit|Bash"
DENY_MATCHER = "Bash"  # the room's command policy is checked before each shell command
ALLOWED_TOOLS = ("mcp__bullpen",)  # bullpen's own MCP tools run without a prompt
SETTINGS_FILE = "claude-settings.json"
MCP_FILE = "claude-mcp.json"
HTTP_HOOK_TIMEOUT = 5  # seconds; the coordinator answers in milliseconds
# Claude runs a command whose PreToolUse hook it gave up on. The hook answers within
# pre_tool.DECIDE_SECONDS whatever happens; this is Claude's own default (2.1.x), written
# down so that a later release with a shorter one cannot undercut that bound.
PRE_TOOL_TIMEOUT = 600  # seconds


@record(frozen=True)
class ClaudeFiles:
    """The two files written for one worktree."""

    settings: Path
    mcp: Path


def hook_command(executable: str) -> str:
    """The shell command Claude Code runs for every bullpen hook."""
    return f"{shlex.quote(executable)} hook claude"


def _is_ours(entry: object) -> bool:
    if not isinstance(entry, dict):
        return False
    hooks = entry.get("hooks")
    return isinstance(hooks, list) and any(
        isinstance(hook, dict) and str(hook.get("command", "")).endswith(" hook claude")
        for hook in hooks)


def merge_settings(settings: dict, executable: str) -> dict:
    """`settings` with bullpen's PostToolUse, UserPromptSubmit and Stop hooks (replacing
    earlier bullpen entries) and the bullpen MCP server enabled; other keys untouched."""
    merged = dict(settings)
    hooks = merged.get("hooks", {})
    if not isinstance(hooks, dict):
        raise BadInput("the 'hooks' key of the Claude settings is not an object; fix it first")
    hooks = dict(hooks)
    command = {"type": "command", "command": hook_command(executable)}
    wanted = {
        "PostToolUse": {"matcher": READ_MATCHER, "hooks": [command]},
        "UserPromptSubmit": {"hooks": [command]},
        "Stop": {"hooks": [command]},
    }
    for event, entry in wanted.items():
        existing = hooks.get(event, [])
        if not isinstance(existing, list):
            raise BadInput(f"hooks.{event} in the Claude settings is not a list; fix it first")
        hooks[event] = [item for item in existing if not _is_ours(item)] + [entry]
    merged["hooks"] = hooks
    enabled = merged.get("enabledMcpjsonServers", [])
    if isinstance(enabled, list) and SERVER_NAME not in enabled:
        merged["enabledMcpjsonServers"] = [*enabled, SERVER_NAME]
    return merged


def merge_mcp(config: dict, executable: str) -> dict:
    """`.mcp.json` content with the bullpen server entry; other servers untouched.

    Identity is passed with `${VAR:-}` expansion, so a Claude started outside bullpen
    still loads the file (and acts as the operator)."""
    merged = dict(config)
    servers = merged.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise BadInput("the 'mcpServers' key of .mcp.json is not an object; fix it first")
    servers = dict(servers)
    servers[SERVER_NAME] = {
        "type": "stdio",
        "command": executable,
        "args": ["mcp"],
        "env": {name: f"${{{name}:-}}" for name in IDENTITY_VARIABLES},
    }
    merged["mcpServers"] = servers
    return merged


def _load(path: Path) -> dict:
    if not path.exists():
        return {}
    try:
        document = json.loads(path.read_text() or "{}")
    except json.JSONDecodeError as error:
        raise BadInput(f"{path} is not valid JSON (line {error.lineno}); fix it first,"
                       " nothing was written") from None
    if not isinstance(document, dict):
        raise BadInput(f"{path} does not hold a JSON object; fix it first, nothing was written")
    return document


def _write(path: Path, document: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    staged = path.with_name(path.name + ".bullpen-tmp")
    staged.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    staged.replace(path)


def write_settings(worktree: Path, executable: str | None = None) -> ClaudeFiles:
    """Write (merging) the Claude Code hook settings and MCP entry for `worktree`.

    Both files are read and checked before either is written, so a broken file leaves
    both untouched."""
    if not worktree.is_dir():
        raise BadInput(f"{worktree} is not a directory")
    executable = executable or bullpen_executable()
    settings_path, mcp_path = worktree / SETTINGS_PATH, worktree / MCP_PATH
    settings = merge_settings(_load(settings_path), executable)
    mcp = merge_mcp(_load(mcp_path), executable)
    _write(settings_path, settings)
    _write(mcp_path, mcp)
    return ClaudeFiles(settings_path, mcp_path)


def http_hook(port: int) -> dict:
    """Claude Code's HTTP hook to the coordinator's hook server on `port`: the session
    and its hook key travel as headers Claude fills from the pane's environment (never
    written into the file). Not the token: the key answers this hook only."""
    return {"type": "http", "url": f"http://127.0.0.1:{port}/hook/claude",
            "headers": {"X-Bullpen-Session": f"${IdentityVariable.SESSION}",
                        "X-Bullpen-Hook-Key": f"${IdentityVariable.HOOK_KEY}"},
            "allowedEnvVars": [IdentityVariable.SESSION, IdentityVariable.HOOK_KEY],
            "timeout": HTTP_HOOK_TIMEOUT}


def launch_settings(executable: str, hook_port: int | None = None) -> dict:
    """The `--settings` document of a bullpen session: its hooks (the room's command
    policy, reads, notes at the turn boundary, idle, permission questions, the
    conversation id) and permission for bullpen's own MCP tools.

    With `hook_port`, the hook after every tool call is an HTTP hook to the coordinator
    (a command hook starts a process per tool call). A failed HTTP hook does not stop
    Claude; the turn's hooks stay command hooks, which work with the coordinator down
    (and forward to it when it is up), and SessionStart takes no HTTP hook in 2.1.x."""
    command = {"type": "command", "command": hook_command(executable)}
    per_tool = http_hook(hook_port) if hook_port else command
    everywhere = [{"hooks": [command]}]
    return {
        "hooks": {
            # A command hook: the room's deny list must hold with the coordinator down.
            "PreToolUse": [{"matcher": DENY_MATCHER,
                            "hooks": [{**command, "timeout": PRE_TOOL_TIMEOUT}]}],
            "PostToolUse": [{"matcher": LAUNCH_READ_MATCHER, "hooks": [per_tool]}],
            "UserPromptSubmit": everywhere,
            "Stop": everywhere,
            "PermissionRequest": everywhere,
            "SessionStart": everywhere,
        },
        "permissions": {"allow": list(ALLOWED_TOOLS)},
    }


def session_files(home: Path, session: str) -> ClaudeFiles:
    """Where a session's launch files are (nothing is made: doctor only looks)."""
    directory = home / agent_files.AGENTS_DIR / session
    return ClaudeFiles(directory / SETTINGS_FILE, directory / MCP_FILE)


def launch_problem(files: ClaudeFiles) -> str | None:
    """What is wrong with a session's launch files, None when the settings hold each of
    bullpen's hooks and the MCP config its server."""
    try:
        settings = json.loads(files.settings.read_text())
        mcp = json.loads(files.mcp.read_text())
    except (OSError, ValueError):
        return f"Claude hook settings or MCP config missing or unreadable ({files.settings})"
    hooks = settings.get("hooks") if isinstance(settings, dict) else None
    wanted = launch_settings("bullpen")["hooks"]
    missing = [event for event in wanted
               if not isinstance(hooks, dict) or not isinstance(hooks.get(event), list)
               or not any(_is_ours(entry) or _is_our_http(entry) for entry in hooks[event])]
    if missing:
        return f"Claude hook settings lack bullpen's {', '.join(missing)} ({files.settings})"
    servers = mcp.get("mcpServers") if isinstance(mcp, dict) else None
    if not isinstance(servers, dict) or SERVER_NAME not in servers:
        return f"Claude MCP config lacks the bullpen server ({files.mcp})"
    return None


def _is_our_http(entry: object) -> bool:
    hooks = entry.get("hooks") if isinstance(entry, dict) else None
    return isinstance(hooks, list) and any(
        isinstance(hook, dict) and str(hook.get("url", "")).endswith("/hook/claude")
        for hook in hooks)


def launch_files(home: Path, session: str, executable: str | None = None,
                 http_hooks: bool = True) -> ClaudeFiles:
    """Write the session's settings and MCP config under `.bullpen/agents/<session>/`
    (with the HTTP hook to the room's hook port unless `http_hooks` is False)."""
    executable = executable or bullpen_executable()
    directory = agent_files.agent_dir(home, session)
    files = ClaudeFiles(directory / SETTINGS_FILE, directory / MCP_FILE)
    port = agent_files.reserve_hook_port(home) if http_hooks else None
    _write(files.settings, launch_settings(executable, port))
    _write(files.mcp, merge_mcp({}, executable))
    return files


def transcript_exists(conversation: str, env: dict[str, str] | None = None) -> bool:
    """Whether Claude keeps conversation `conversation` on disk (`--resume` needs it)."""
    return claude_transcript.transcript_path(conversation, env) is not None


def resume_id(home: Path, session: str, fresh: bool = False) -> str | None:
    """The conversation a launch resumes: the session's last one, unless `fresh`."""
    if fresh:
        agent_files.forget(home, session, agent_files.CONVERSATION)
        return None
    conversation = agent_files.read_value(home, session, agent_files.CONVERSATION)
    return conversation if conversation and transcript_exists(conversation) else None


def claude_command(agent: str, files: ClaudeFiles, resume: str | None = None,
                   extra: list[str] | None = None) -> str:
    """`agent` with bullpen's settings and MCP config (and the conversation to resume,
    and `extra` flags: an installed team plan's), after the program's own words
    (`IS_SANDBOX=1 claude --dangerously-skip-permissions --settings …`,
    `npx @anthropic-ai/claude-code --settings …`)."""
    flags = ["--settings", str(files.settings), "--mcp-config", str(files.mcp)]
    if resume:
        flags += ["--resume", resume]
    flags += extra or []
    return with_flags(agent, flags)
