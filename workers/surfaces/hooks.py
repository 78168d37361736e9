"""Agent hooks: Hermes and Claude Code tell bullpen what they read, pull pending notes into
their next turn, and report their own status.

`handle` works over an open room: the kind's adapter reads what the call means
(`Adapter.read_hook`: its events, Hermes' side agents told from the session's own turn)
and this acts on it in the store, alike for every kind (a command the room's policy
denies is audited, and refused with the kind's `deny_reply`), returning what the hook prints
(a dict) or None. `run_hook` is the process entry point: it never disturbs the agent —
a bad payload or a missing identity is logged to `<room>/logs/hooks.log` and the hook
exits 0 with nothing printed. The kinds are the registry's (`workers.agents.kinds`);
only the one a call names is loaded.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping

from board import reads, sessions
from board.errors import BullpenError
from board.home import room_home
from board.room import Room, open_room
from board.vocabulary import DeliveryChannel, IdentityVariable, ReadSource, SessionStatus
from workers import logs
from workers.agents import agent_files, pre_tool
from workers.agents.adapter import Adapter
from workers.agents.hook_call import HookInputError
from workers.agents.kinds import hook_adapter, hook_kinds

TYPE_CHECKING = False  # not typing's: the hook process pays for every import
if TYPE_CHECKING:
    from board.models import Note
    from workers.agents.pre_tool import Refusal

__all__ = ["HookInputError", "answer", "decode", "handle", "handler", "is_per_tool_call",
           "knows", "log_line", "run_hook"]

LOG_NAME = "hooks.log"
DENIED_ACTION = "run command"  # the audit's action for a command the room's policy denied


def format_notes(pending: list[Note], executable: str | None = None,
                 repeats: set[int] | frozenset[int] = frozenset(), overflow: int = 0) -> str:
    """Pending notes as text for the agent's next turn: bullpen's header from the stored
    sender and id (a body can never read as one), the body indented, and how to reply
    with what the agent really has (the MCP tool, or `bullpen` by name: its directory is
    on the pane's PATH, and on the PATH of Hermes' terminal tool through the profile)."""
    if not pending and not overflow:
        return ""
    from board import deliveries
    from workers.agents import framing  # only when there are notes: it compiles patterns

    def answer(note: Note) -> str:
        cli = executable or "bullpen"
        return (f"(reply with the tool mcp__bullpen__send_note to={note.sender!r}"
                f" reply_to={note.id}, or run: {cli} note send {note.sender} 'TEXT'"
                f" --reply-to {note.id})")
    notice = (framing.overflow_notice(overflow, deliveries.QUEUE_CAP, typed=False)
              if overflow else "")
    return framing.hook_text(pending, repeats, answer, notice)


def _session(room: Room) -> str:
    if room.caller.is_operator:
        raise HookInputError("no BULLPEN_SESSION in the hook's environment")
    return room.caller.name


def _adapter(kind: str) -> Adapter:
    adapter = hook_adapter(kind)
    if adapter is None:
        raise HookInputError(f"unknown agent kind {kind!r}; use one of {', '.join(hook_kinds())}")
    return adapter


def handle(kind: str, payload: Mapping[str, object], room: Room) -> dict | None:
    """One hook call of a `kind` agent: its adapter reads what the call means, and this
    acts on it in the store the same way for every kind. Returns what the hook prints."""
    adapter = _adapter(kind)
    session = _session(room)
    call = adapter.read_hook(payload, room.home, session)
    if call.reads:
        reads.record(room.conn, session, call.reads, source=ReadSource.HOOK)
    if call.conversation:
        agent_files.write_value(room.home, session, agent_files.CONVERSATION,
                                call.conversation)
    if call.question is not None:
        # The question is the session's needs_input reason (the coordinator reads it
        # while the pane shows the prompt): the dashboard's strip and `ls` show it.
        agent_files.write_value(room.home, session, agent_files.QUESTION, call.question)
    if call.answered:
        current = sessions.get(room.conn, session)
        if current is not None and current.hook_status == SessionStatus.NEEDS_INPUT:
            sessions.set_hook_status(room.conn, session, SessionStatus.WORKING)
            agent_files.forget(room.home, session, agent_files.QUESTION)
    if call.status is not None:
        sessions.set_hook_status(room.conn, session, call.status)
    if call.question is not None:
        identity: dict[str, str] = {IdentityVariable.HOME: str(room.home),
                                    IdentityVariable.SESSION: session}
        log_line(identity, kind, f"needs input: {call.question}")
    if call.denied is not None:
        audit_refusal(room, kind, session, call.denied, adapter.refused_by(call.refuse))
        return adapter.deny_reply(call.denied) if call.refuse else None
    if not call.take_notes:
        return None
    context = _pull_notes(room, session)
    return adapter.notes_reply(context) if context else None


def audit_refusal(room: Room, kind: str, session: str, refusal: Refusal, how: str) -> None:
    """One audit entry per blocked command: who, the command (cut), why. The refusal
    stands whatever happens here: an entry the store cannot take is logged instead."""
    from board import audit  # here: most hook calls deny nothing
    from board.authority import REFUSED

    detail = pre_tool.audit_detail(refusal, how)
    target = pre_tool.shown(refusal.shown)
    try:
        audit.record(room.conn, session, DENIED_ACTION, target, REFUSED, detail)
    except Exception as error:  # a store fault, or text it cannot take
        log_line({IdentityVariable.HOME: str(room.home), IdentityVariable.SESSION: session},
                 kind, f"{detail}: {target} (not audited: {pre_tool.failure(error)})")


def handler(kind: str) -> Callable[[Mapping[str, object], Room], dict | None]:
    """`handle` for one kind (`handler("claude")(payload, room)`)."""
    return lambda payload, room: handle(kind, payload, room)


def _pull_notes(room: Room, session: str) -> str:
    # Here: the hook after each tool call records reads and takes no notes.
    from board import deliveries, notes

    sessions.set_hook_status(room.conn, session, SessionStatus.WORKING)
    handed = notes.take_pending(room.conn, session, via=DeliveryChannel.HOOK)
    overflow, newest = deliveries.untold_overflow(room.conn, session)
    text = format_notes(handed, repeats=deliveries.repeats(room.conn, session,
                                                           [n.id for n in handed]),
                        overflow=overflow)
    deliveries.told_overflow(room.conn, session, newest)
    return text


def is_per_tool_call(kind: str, payload: Mapping[str, object]) -> bool:
    """The hook after a tool call: it records reads (and that a question was answered),
    takes no notes and says nothing to the agent. Its adapter tells."""
    adapter = hook_adapter(kind)
    return adapter is not None and adapter.per_tool_hook(payload)


def knows(kind: str) -> bool:
    """Whether `bullpen hook KIND` (or `/hook/KIND`) answers for `kind`."""
    return hook_adapter(kind) is not None


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
    output = handle(kind, payload, room)
    return json.dumps(output, ensure_ascii=False) if output else ""


def run_hook(kind: str, stdin_text: str, env: Mapping[str, str] | None = None) -> str:
    """Handle one hook call; returns what to print (maybe ""). Never raises."""
    env = os.environ if env is None else env
    if not knows(kind):
        log_line(env, kind, f"unknown agent kind {kind!r}; use one of {', '.join(hook_kinds())}")
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
