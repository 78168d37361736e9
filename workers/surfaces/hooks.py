"""Agent hooks: Hermes and Claude Code tell bullpen what they read, pull pending notes into
their next turn, and report their own status.

Each `handle_*` function works over an open room: it takes the decoded hook payload and
returns what the hook prints (a dict) or None.

Hermes runs side agents inside a session — the background review (its user message
starts "Review the conversation above"), the skill curator, delegated subagents — with
the session's environment, so they fire the same hooks. Only the session's own turn
counts: its `pre_llm_call` records the turn's task id, a `pre_llm_call` arriving while
that turn is open (or with a side agent's prompt) takes no notes and reports nothing,
and an `on_session_end` for another task id is ignored. Title and compression calls are
plain model calls and fire no hooks. `run_hook` is the process entry point: it
never disturbs the agent — a bad payload or a missing identity is logged to
`<room>/logs/hooks.log` and the hook exits 0 with nothing printed.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from board import deliveries, notes, reads, sessions
from board.errors import BadInput, BullpenError
from board.home import room_home
from board.models import Note
from board.room import Room, open_room
from board.vocabulary import DeliveryChannel, IdentityVariable, ReadSource, SessionStatus
from workers import logs
from workers.agents import agent_files
from workers.agents.claude.tool_reads import claude_read_paths
from workers.agents.hermes.tool_reads import hermes_read_paths

HERMES_SIDE_PROMPTS = ("Review the conversation above",
                       "You are running as Hermes' background skill CURATOR")
OPEN, DONE = "open", "done"
LOG_NAME = "hooks.log"


class HookInputError(BadInput):
    """A payload the hook cannot use (not JSON, no event, an event it does not know)."""


def format_notes(pending: list[Note], executable: str | None = None,
                 repeats: set[int] | frozenset[int] = frozenset()) -> str:
    """Pending notes as text for the agent's next turn: bullpen's header from the stored
    sender and id (a body can never read as one), the body indented, and how to reply
    with what the agent really has (the MCP tool, or this `bullpen` by its absolute path,
    which a terminal tool with a reset PATH still finds)."""
    from workers.agents import framing  # only when there are notes: it compiles patterns

    def answer(note: Note) -> str:
        cli = executable or _executable_or_name()
        return (f"(reply with the tool mcp__bullpen__send_note to={note.sender!r}"
                f" reply_to={note.id}, or run: {cli} note send {note.sender} 'TEXT'"
                f" --reply-to {note.id})")
    return framing.hook_text(pending, repeats, answer)


def _executable_or_name() -> str:
    from workers.agents.bullpen_command import bullpen_executable

    try:
        return bullpen_executable()
    except BullpenError:
        return "bullpen"


def _session(room: Room) -> str:
    if room.caller.is_operator:
        raise HookInputError("no BULLPEN_SESSION in the hook's environment")
    return room.caller.name


def _event(payload: Mapping[str, object], key: str) -> str:
    event = payload.get(key)
    if not isinstance(event, str) or not event:
        raise HookInputError(f"payload has no {key}")
    return event


def _cwd(payload: Mapping[str, object]) -> Path:
    cwd = payload.get("cwd")
    return Path(cwd) if isinstance(cwd, str) and cwd else Path.cwd()


def _pull_notes(room: Room, session: str) -> str:
    sessions.set_hook_status(room.conn, session, SessionStatus.WORKING)
    handed = notes.take_pending(room.conn, session, via=DeliveryChannel.HOOK)
    return format_notes(handed, repeats=deliveries.repeats(room.conn, session,
                                                           [n.id for n in handed]))


def _extra(payload: Mapping[str, object]) -> dict:
    extra = payload.get("extra")
    return extra if isinstance(extra, dict) else {}


def _main_turn(room: Room, session: str) -> tuple[str | None, str | None]:
    """(task id, open|done) of the session's own latest Hermes turn."""
    value = agent_files.read_value(room.home, session, agent_files.MAIN_TURN)
    task, _, state = (value or "").partition(" ")
    return task or None, state or None


def _is_side_turn(room: Room, session: str, payload: Mapping[str, object]) -> bool:
    """A `pre_llm_call` of a Hermes side agent (review, curator, subagent)?"""
    extra = _extra(payload)
    message = str(extra.get("user_message") or "").lstrip()
    if message.startswith(HERMES_SIDE_PROMPTS):
        return True
    task, state = _main_turn(room, session)
    return state == OPEN and task != str(extra.get("task_id") or "-")


def handle_hermes(payload: Mapping[str, object], room: Room) -> dict | None:
    """One Hermes shell-hook call (`hook_event_name`, `tool_name`, `tool_input`, `cwd`)."""
    session = _session(room)
    event = _event(payload, "hook_event_name")
    if event == "post_tool_call":
        extra = payload.get("extra")
        failed = isinstance(extra, dict) and extra.get("status") in ("error", "blocked")
        if not failed:
            paths = hermes_read_paths(payload.get("tool_name"), payload.get("tool_input"),
                                      _cwd(payload))
            reads.record(room.conn, session, paths, source=ReadSource.HOOK)
        return None
    task = str(_extra(payload).get("task_id") or "-")
    if event == "pre_llm_call":
        if _is_side_turn(room, session, payload):
            return None  # a side agent's turn: the conversation would never see the notes
        agent_files.write_value(room.home, session, agent_files.MAIN_TURN, f"{task} {OPEN}")
        if isinstance(payload.get("session_id"), str) and payload["session_id"]:
            agent_files.write_value(room.home, session, agent_files.CONVERSATION,
                                    str(payload["session_id"]))
        context = _pull_notes(room, session)
        return {"context": context} if context else None
    if event == "on_session_end":
        main, _state = _main_turn(room, session)
        if main is not None and task != main:
            return None  # a side agent ended, the session's own turn may still run
        agent_files.write_value(room.home, session, agent_files.MAIN_TURN, f"{task} {DONE}")
        sessions.set_hook_status(room.conn, session, SessionStatus.IDLE)
        return None
    raise HookInputError(f"unknown hermes hook event {event!r}")


def is_per_tool_call(kind: str, payload: Mapping[str, object]) -> bool:
    """Claude's hook after a tool call: it records reads (and that a question was
    answered), takes no notes and says nothing to the agent."""
    return kind == "claude" and payload.get("hook_event_name") == "PostToolUse"


def handle_claude(payload: Mapping[str, object], room: Room) -> dict | None:
    """One Claude Code hook call (`hook_event_name`, `tool_name`, `tool_input`, `cwd`)."""
    session = _session(room)
    event = _event(payload, "hook_event_name")
    if event == "PostToolUse":
        found = claude_read_paths(payload.get("tool_name"),
                                             payload.get("tool_input"), _cwd(payload))
        if found:
            reads.record(room.conn, session, found, source=ReadSource.HOOK)
        current = sessions.get(room.conn, session)
        if current is not None and current.hook_status == SessionStatus.NEEDS_INPUT:
            # the question was answered
            sessions.set_hook_status(room.conn, session, SessionStatus.WORKING)
            agent_files.forget(room.home, session, agent_files.QUESTION)
        return None
    if event == "PermissionRequest":
        # The question is the session's needs_input reason (the coordinator reads it
        # while the pane shows the prompt): the dashboard's strip and `ls` show it.
        question = permission_question(payload)
        agent_files.write_value(room.home, session, agent_files.QUESTION, question)
        sessions.set_hook_status(room.conn, session, SessionStatus.NEEDS_INPUT)
        identity: dict[str, str] = {IdentityVariable.HOME: str(room.home),
                                    IdentityVariable.SESSION: session}
        log_line(identity, "claude", f"needs input: {question}")
        return None
    if event == "SessionStart":
        conversation = payload.get("session_id")
        if isinstance(conversation, str) and conversation:
            agent_files.write_value(room.home, session, agent_files.CONVERSATION, conversation)
        return None
    if event == "UserPromptSubmit":
        context = _pull_notes(room, session)
        if not context:
            return None
        return {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                       "additionalContext": context}}
    if event == "Stop":
        sessions.set_hook_status(room.conn, session, SessionStatus.IDLE)
        return None
    raise HookInputError(f"unknown claude hook event {event!r}")


def permission_question(payload: Mapping[str, object]) -> str:
    """What Claude asks the human: the tool and what it would act on."""
    tool = str(payload.get("tool_name") or "a tool")
    tool_input = payload.get("tool_input")
    target = ""
    if isinstance(tool_input, dict):
        target = str(tool_input.get("command") or tool_input.get("file_path")
                     or tool_input.get("path") or tool_input.get("url") or "")
    flat = " ".join(target.split())[:200]  # one line: it is shown in a strip and a table
    return f"Claude asks to use {tool}" + (f" ({flat})" if flat else "")


HANDLERS: dict[str, Callable[[Mapping[str, object], Room], dict | None]] = {
    "hermes": handle_hermes,
    "claude": handle_claude,
}


def log_line(env: Mapping[str, str], kind: str, message: str) -> None:
    """Append one line to `<room>/logs/hooks.log` (rotated at its cap, each value cut to
    a prefix: workers.logs); silent when there is no room to log in."""
    try:
        home = room_home(env)
        if not home.is_dir():
            return
        folder = home / logs.DIR_NAME
        folder.mkdir(exist_ok=True)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        who = logs.clip(env.get(IdentityVariable.SESSION) or "-", 40)
        line = f"{stamp} {logs.clip(kind, 20)} {who} {logs.clip(message, 500)}"
        logs.append_line(str(folder / LOG_NAME), line)
    except (OSError, BullpenError):
        pass


def decode(text: str) -> dict:
    """The hook payload: a JSON object (HookInputError otherwise)."""
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as error:
        raise HookInputError(f"payload is not JSON ({error})") from None
    if not isinstance(payload, dict):
        raise HookInputError("payload is not a JSON object")
    return payload


def answer(kind: str, payload: Mapping[str, object], room: Room) -> str:
    """What the hook prints for one call (JSON, or "" for nothing), as `room.caller`.

    The one path for every transport: the command hook and the coordinator's HTTP
    hooks (workers.surfaces.hook_server) run the same handlers."""
    handler = HANDLERS.get(kind)
    if handler is None:
        raise HookInputError(f"unknown agent kind {kind!r}; use one of {', '.join(HANDLERS)}")
    output = handler(payload, room)
    return json.dumps(output, ensure_ascii=False) if output else ""


def run_hook(kind: str, stdin_text: str, env: Mapping[str, str] | None = None) -> str:
    """Handle one hook call; returns what to print (maybe ""). Never raises."""
    env = os.environ if env is None else env
    if kind not in HANDLERS:
        log_line(env, kind, f"unknown agent kind {kind!r}; use one of {', '.join(HANDLERS)}")
        return ""
    try:
        payload = decode(stdin_text)
        if not env.get(IdentityVariable.SESSION):
            raise HookInputError("no BULLPEN_SESSION in the hook's environment")
        with open_room(env, create=False) as room:
            return answer(kind, payload, room)
    except BullpenError as error:
        log_line(env, kind, str(error))
        return ""
    except Exception as error:  # an agent must never be disturbed by its hook
        log_line(env, kind, f"unexpected {type(error).__name__}: {error}")
        return ""
