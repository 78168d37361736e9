"""What one agent hook call means, as its kind's adapter reads the payload.

The adapter knows its agent's events (`PostToolUse`, `pre_llm_call` …); the hooks
surface (`workers.surfaces.hooks`) acts on the answer in the store, the same way for
every kind: reads recorded, a status reported, pending notes handed into the turn.
Stdlib and `board` only: the hook process imports this on every call (`command_policy`
only for the checker: a hook call loads it when it has a command to check).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from board.errors import BadInput
from board.records import record
from board.vocabulary import SessionStatus

TYPE_CHECKING = False  # not typing's
if TYPE_CHECKING:
    from workers.agents.pre_tool import Refusal


class HookInputError(BadInput):
    """A payload the hook cannot use (not JSON, no event, an event it does not know)."""


@record(frozen=True)
class HookCall:
    """One hook call, read. Empty (the default) means: nothing to do, say nothing."""

    reads: tuple[str, ...] = ()  # repo-relative files the agent read (or edited)
    status: SessionStatus | None = None  # what the agent reports: idle, needs_input …
    take_notes: bool = False  # hand pending notes into this turn (it is working)
    answered: bool = False  # a question it was asking is answered, if it was asking
    conversation: str | None = None  # the agent's conversation id (a restart resumes it)
    question: str | None = None  # what it asks the human (with status needs_input)
    denied: Refusal | None = None  # a command refused (before it runs, answered with
    # `deny_reply`: denied by the room's policy or not checkable; Hermes: also after its
    # own deny list refused it)
    refuse: bool = False  # answer with the kind's `deny_reply` (False: only audit it)


def event_name(payload: Mapping[str, object], key: str = "hook_event_name") -> str:
    """The payload's event name (HookInputError when there is none)."""
    event = payload.get(key)
    if not isinstance(event, str) or not event:
        raise HookInputError(f"payload has no {key}")
    return event


def payload_cwd(payload: Mapping[str, object]) -> Path:
    """The directory the agent ran the call in (the hook's own when not given)."""
    cwd = payload.get("cwd")
    return Path(cwd) if isinstance(cwd, str) and cwd else Path.cwd()


def text_value(payload: Mapping[str, object], key: str) -> str | None:
    """A non-empty string at `key`, else None."""
    value = payload.get(key)
    return value if isinstance(value, str) and value else None
