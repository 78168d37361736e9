"""A hook call before a tool runs, answered by whichever process received it.

`bullpen hook KIND` (hook_entry) and the hook server (hook_answer) both answer it here,
from the session's patterns file (`workers.agents.pre_tool`), before the store or the
coordinator is asked: a locked store, a busy or absent coordinator, a body too large or
text that is not text can only ever make it a refusal, never an allow. A refusal is
audited afterwards by a process of its own (`audit_later`), which the agent does not
wait for: it waits for the store up to `AUDIT_PATIENCE` and logs the entry it could not
write. Only the identity the caller proved (its token, or Claude's hook key) is audited.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from board.vocabulary import IdentityVariable
from workers.agents import pre_tool

NOT_PRE_TOOL = None  # not a call before a tool: the caller handles it as any other
AUDIT_PATIENCE = 120.0  # seconds the audit process waits for a busy store
AUDIT_PAUSE = 1.0  # between its tries (each waits the store's own busy timeout first)
_AUDIT_MAIN = "from workers.surfaces.pre_tool_hook import audit_main; audit_main()"


def answer(kind: str, text: str, identity: Mapping[str, str]) -> str | None:
    """What the hook answers a call before a tool runs ("" lets the tool run; a refusal
    is audited later), or NOT_PRE_TOOL for any other call. `identity` holds the
    IdentityVariable names (the hook's environment, or the server's headers)."""
    payload = pre_tool.payload_of(text)
    if payload is not None and not pre_tool.is_pre_tool(payload):
        return NOT_PRE_TOOL  # it only mentions the event (a prompt about hooks …)
    from workers.agents.kinds import hook_adapter

    adapter = hook_adapter(kind)
    if adapter is None:
        return NOT_PRE_TOOL
    refusal: pre_tool.Refusal | None
    if payload is None:  # it names a pre-tool event, but cannot be read
        refusal = pre_tool.Unchecked(text, "the hook's input is not a JSON object")
    else:
        command = pre_tool.shell_command(payload)
        if command is None:
            return ""  # another tool: nothing to check
        home = identity.get(IdentityVariable.HOME) or ""
        refusal = pre_tool.decide(command, _path(home),
                                  identity.get(IdentityVariable.SESSION) or "")
    if refusal is None:
        return ""
    try:
        reply = json.dumps(adapter.deny_reply(refusal))  # ASCII: any text prints
    except Exception:  # a kind that takes no refusal from a hook
        return NOT_PRE_TOOL
    audit_later(kind, identity, refusal, adapter.refused_by(True))
    return reply


def refusal_reply(kind: str, text: str, error: Exception) -> str | None:
    """The refusal for a pre-tool call `answer` itself failed on (NOT_PRE_TOOL for a kind
    that takes none)."""
    from workers.agents.kinds import hook_adapter

    adapter = hook_adapter(kind)
    if adapter is None:
        return NOT_PRE_TOOL
    return json.dumps(adapter.deny_reply(pre_tool.Unchecked(text, pre_tool.failure(error))))


def _path(home: str):
    from pathlib import Path  # here: only a shell command is checked

    return Path(home) if home else None


def audit_later(kind: str, identity: Mapping[str, str], refusal: pre_tool.Refusal,
                refused_by: str) -> None:
    """Hand the refusal's audit entry to a process of its own, which the agent does not
    wait for (no descriptor of the hook's is kept open); `refused_by` names the refuser
    in the adapter's words (`Adapter.refused_by`), as every other refusal's entry does."""
    import subprocess
    import sys

    job = {"kind": kind, "identity": {name: identity.get(name, "") for name in _IDENTITY},
           "target": pre_tool.shown(refusal.shown),
           "detail": pre_tool.audit_detail(refusal, refused_by),
           "unchecked": isinstance(refusal, pre_tool.Unchecked)}
    try:
        # -P, and "/" for its directory: the agent's directory (it could hold a `workers`
        # package) is not on the path; PYTHONPATH still is (a checkout run from source).
        child = subprocess.Popen([sys.executable, "-P", "-c", _AUDIT_MAIN],
                                 stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True,
                                 cwd="/")
        assert child.stdin is not None
        child.stdin.write(json.dumps(job).encode())
        child.stdin.close()
    except OSError as error:
        _not_audited(job, error)


_IDENTITY = (IdentityVariable.HOME, IdentityVariable.SESSION, IdentityVariable.TOKEN,
             IdentityVariable.HOOK_KEY)


def audit_main() -> None:
    """The audit process: one entry read from stdin, written once the store takes it."""
    import sys
    import time

    from board.errors import BadInput

    job = json.loads(sys.stdin.read())
    if job["unchecked"]:  # the operator sees what failed, audited or not
        _log(job, f"refused: {job['detail']}: {job['target']}")
    deadline = time.monotonic() + AUDIT_PATIENCE
    while True:
        try:
            _write_entry(job)
            return
        except BadInput as error:  # no room, or not the session it names: never
            _not_audited(job, error)
            return
        except Exception as error:  # a busy or failing store: again, until the deadline
            if time.monotonic() >= deadline:
                _not_audited(job, error)
                return
        time.sleep(AUDIT_PAUSE)


def _write_entry(job: dict) -> None:
    from board import audit
    from board.authority import REFUSED
    from board.errors import Refused
    from board.identity import resolve_hook_caller
    from board.room import open_room
    from workers.surfaces.hooks import DENIED_ACTION

    identity = job["identity"]
    session = identity[IdentityVariable.SESSION]
    token, key = identity[IdentityVariable.TOKEN], identity[IdentityVariable.HOOK_KEY]
    if not (token or key):
        raise Refused(f"session {session!r} proved nothing (no token, no hook key)")
    env: dict[str, str] = {IdentityVariable.HOME: identity[IdentityVariable.HOME]}
    if token:  # open_room checks it
        env |= {IdentityVariable.SESSION: session, IdentityVariable.TOKEN: token}
    with open_room(env, create=False) as room:
        if not token:  # Claude's HTTP hook proves the session with its hook key
            resolve_hook_caller(room.conn, session, key)
        audit.record(room.conn, session, DENIED_ACTION, job["target"], REFUSED,
                     job["detail"])


def _not_audited(job: dict, error: BaseException) -> None:
    _log(job, f"{job['detail']}: {job['target']} (not audited: {pre_tool.failure(error)})")


def _log(job: dict, message: str) -> None:
    from workers.surfaces.hooks import log_line

    log_line(job["identity"], job["kind"], message)
