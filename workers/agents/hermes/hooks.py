"""Hermes' shell-hook calls, read: which event, and whether it is the session's own turn.

`pre_tool_call` (before each terminal command) refuses a command the room's policy denies
or bullpen could not check (`workers.agents.pre_tool`), with the reason the model is
given; Hermes' own `approvals.deny` holds the same patterns beneath it (`deny`).

Hermes runs side agents inside a session — the background review (its user message
starts "Review the conversation above"), the skill curator, delegated subagents — with
the session's environment, so they fire the same hooks. Only the session's own turn
counts: its `pre_llm_call` records the turn's task id (`agent_files.MAIN_TURN`), a
`pre_llm_call` arriving while that turn is open (or with a side agent's prompt) takes no
notes and reports nothing, and an `on_session_end` for another task id is ignored.
Title and compression calls are plain model calls and fire no hooks.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from board.vocabulary import SessionStatus
from workers.agents import agent_files, pre_tool
from workers.agents.hermes.tool_reads import hermes_read_paths
from workers.agents.hook_call import (
    HookCall,
    HookInputError,
    event_name,
    payload_cwd,
    text_value,
)

HERMES_SIDE_PROMPTS = ("Review the conversation above",
                       "You are running as Hermes' background skill CURATOR")
OPEN, DONE = "open", "done"
BEFORE_TOOL = "pre_tool_call"  # before each terminal command: the room's policy decides

TYPE_CHECKING = False  # not typing's: the hook process imports this module
if TYPE_CHECKING:
    from workers.agents.pre_tool import Refusal


def _extra(payload: Mapping[str, object]) -> dict:
    extra = payload.get("extra")
    return extra if isinstance(extra, dict) else {}


def main_turn(home: Path, session: str) -> tuple[str | None, str | None]:
    """(task id, open|done) of the session's own latest Hermes turn."""
    value = agent_files.read_value(home, session, agent_files.MAIN_TURN)
    task, _, state = (value or "").partition(" ")
    return task or None, state or None


def is_side_turn(home: Path, session: str, payload: Mapping[str, object]) -> bool:
    """A `pre_llm_call` of a Hermes side agent (review, curator, subagent)?"""
    extra = _extra(payload)
    message = str(extra.get("user_message") or "").lstrip()
    if message.startswith(HERMES_SIDE_PROMPTS):
        return True
    task, state = main_turn(home, session)
    return state == OPEN and task != str(extra.get("task_id") or "-")


def read_hook(payload: Mapping[str, object], home: Path, session: str) -> HookCall:
    """One Hermes shell-hook call (`hook_event_name`, `tool_name`, `tool_input`, `cwd`,
    `extra`), keeping the session's own turn in `agent_files.MAIN_TURN`."""
    event = event_name(payload)
    if event == BEFORE_TOOL:
        command = pre_tool.shell_command(payload)
        if command is None:
            return HookCall()
        refusal = pre_tool.guarded(command, pre_tool.session_patterns(home, session))
        return HookCall(denied=refusal, refuse=True) if refusal else HookCall()
    if event == "post_tool_call":
        if _extra(payload).get("status") in ("error", "blocked"):
            # Its own approvals.deny refused the command: audited, nothing to answer.
            from workers.agents.hermes.deny import refused_command  # yaml: only here

            return HookCall(denied=refused_command(payload))
        return HookCall(reads=tuple(hermes_read_paths(
            payload.get("tool_name"), payload.get("tool_input"), payload_cwd(payload))))
    task = str(_extra(payload).get("task_id") or "-")
    if event == "pre_llm_call":
        if is_side_turn(home, session, payload):
            return HookCall()  # a side agent's turn: the conversation would never see notes
        agent_files.write_value(home, session, agent_files.MAIN_TURN, f"{task} {OPEN}")
        return HookCall(take_notes=True, conversation=text_value(payload, "session_id"))
    if event == "on_session_end":
        main, _state = main_turn(home, session)
        if main is not None and task != main:
            return HookCall()  # a side agent ended, the session's own turn may still run
        agent_files.write_value(home, session, agent_files.MAIN_TURN, f"{task} {DONE}")
        return HookCall(status=SessionStatus.IDLE)
    raise HookInputError(f"unknown hermes hook event {event!r}")


def notes_reply(context: str) -> dict:
    """`pre_llm_call`'s output that appends `context` to the turn's user message."""
    return {"context": context}


def deny_reply(refusal: Refusal) -> dict:
    """`pre_tool_call`'s output that blocks the command; Hermes gives the model the reason."""
    return {"decision": "block", "reason": refusal.reason()}
