"""Claude Code's hook calls, read: which event, what it means for bullpen.

`PreToolUse` (before each Bash call, a command hook: it must work with no coordinator)
refuses a command the room's policy denies (`command_policy`), with the reason the model
is given; `PostToolUse` (after every tool call, usually over HTTP) names the files the
tool read and, when Claude was asking, that the question was answered; `PermissionRequest` is a
question for the human; `SessionStart` gives the conversation id a restart resumes;
`UserPromptSubmit` takes pending notes into the prompt's turn; `Stop` ends the turn.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from board.vocabulary import SessionStatus
from workers.agents import pre_tool
from workers.agents.claude.tool_reads import claude_read_paths
from workers.agents.hook_call import (
    HookCall,
    HookInputError,
    event_name,
    payload_cwd,
    text_value,
)

PER_TOOL = "PostToolUse"
NOTES_EVENT = "UserPromptSubmit"
BEFORE_TOOL = "PreToolUse"
SHELL_TOOL = "Bash"  # the one tool whose input is a shell command


TYPE_CHECKING = False  # not typing's: the hook after every tool call imports this module
if TYPE_CHECKING:
    from workers.agents.pre_tool import Refusal


def _floor() -> tuple[str, ...]:
    """The patterns every room denies (command_policy.FLOOR)."""
    from workers.agents import command_policy

    return command_policy.FLOOR


def read_hook(payload: Mapping[str, object],
              deny: Callable[[], tuple[str, ...]] = _floor) -> HookCall:
    """One Claude Code hook call (`hook_event_name`, `tool_name`, `tool_input`, `cwd`);
    `deny` gives the session's command patterns."""
    event = event_name(payload)
    if event == BEFORE_TOOL:
        tool_input = payload.get("tool_input")
        command = tool_input.get("command") if isinstance(tool_input, dict) else None
        if payload.get("tool_name") != SHELL_TOOL or not isinstance(command, str):
            return HookCall()
        refusal = pre_tool.guarded(command, deny)
        return HookCall(denied=refusal, refuse=True) if refusal else HookCall()
    if event == PER_TOOL:
        found = claude_read_paths(payload.get("tool_name"), payload.get("tool_input"),
                                  payload_cwd(payload))
        return HookCall(reads=tuple(found), answered=True)
    if event == "PermissionRequest":
        # The question is the session's needs_input reason (the coordinator reads it
        # while the pane shows the prompt): the dashboard's strip and `ls` show it.
        return HookCall(status=SessionStatus.NEEDS_INPUT, question=permission_question(payload))
    if event == "SessionStart":
        return HookCall(conversation=text_value(payload, "session_id"))
    if event == NOTES_EVENT:
        return HookCall(take_notes=True)
    if event == "Stop":
        return HookCall(status=SessionStatus.IDLE)
    raise HookInputError(f"unknown claude hook event {event!r}")


def notes_reply(context: str) -> dict:
    """UserPromptSubmit's output that adds `context` to the prompt's turn."""
    return {"hookSpecificOutput": {"hookEventName": NOTES_EVENT, "additionalContext": context}}


def deny_reply(refusal: Refusal) -> dict:
    """PreToolUse's output that refuses the call; Claude gives the model the reason."""
    return {"hookSpecificOutput": {"hookEventName": BEFORE_TOOL,
                                   "permissionDecision": "deny",
                                   "permissionDecisionReason": refusal.reason()}}


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
