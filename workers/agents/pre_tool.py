"""The decision before an agent runs a shell command: made from the session's patterns
file alone, before the store is touched, and closed on any failure.

Claude Code's `PreToolUse` and Hermes' `pre_tool_call` hooks ask it. The agent runs
whatever its hook does not refuse, and a hook the agent gave up on (its timeout) counts
as allowed; so the answer comes from `command_policy.check` over the patterns the
session was launched with (`command_policy.stored`), and everything that could go wrong
on the way is a refusal, `Unchecked`: a command too long to check, text that is not text
(a lone surrogate), an exception in the policy, a decision slower than `DECIDE_SECONDS`
(the command hook then answers and ends). The audit entry is written after the answer,
and never changes it. Stdlib only until a command is checked: the hook process imports
this for every call that may be a pre-tool call.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: the hook process imports this module for every call
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from pathlib import Path

    from workers.agents.command_policy import Denial

# Each agent's hook event before a tool runs, and the tool whose input is a shell command.
SHELL_TOOL_OF = {"PreToolUse": "Bash", "pre_tool_call": "terminal"}
# The kernel's limit on one argument (MAX_ARG_STRLEN): a shell's -c cannot take a longer
# command, and checking one costs time the agent's hook timeout does not have.
MAX_COMMAND_CHARS = 128 * 1024
DECIDE_SECONDS = 4.0  # well under Hermes' 10 s hook timeout and Claude's 30 s (settings)
WHY_CHARS = 200


class Unchecked:
    """A command bullpen could not check, refused as a denied one is (`why`: what failed).
    A plain class, not a record: this module is on every hook call's path."""

    __slots__ = ("command", "why")
    pattern = ""  # no pattern refused it

    def __init__(self, command: str, why: str) -> None:
        self.command, self.why = command, why

    def __repr__(self) -> str:
        return f"Unchecked(why={self.why!r})"

    @property
    def shown(self) -> str:
        """The command on one line, cut, as text the store and the log can take."""
        return shown(self.command)

    def reason(self) -> str:
        """What the agent is told."""
        return (f"bullpen could not check this command ({self.why}), so it may not run."
                " Do not retry it unchanged; run a shorter, plain command, or ask the"
                " human.")


if TYPE_CHECKING:
    Refusal = Denial | Unchecked  # a command refused before it runs


def shown(command: str, limit: int = WHY_CHARS) -> str:
    """`command` on one line, cut to `limit`, lone surrogates written as escapes."""
    flat = " ".join(command[:limit * 4].split())
    flat = flat if len(flat) <= limit else flat[:limit - 1] + "…"
    return flat.encode("utf-8", "backslashreplace").decode("utf-8")


def is_pre_tool(payload: Mapping[str, object]) -> bool:
    """Whether the call is an agent's hook before a tool runs."""
    return payload.get("hook_event_name") in SHELL_TOOL_OF


def might_be_pre_tool(text: str) -> bool:
    """Whether a payload's raw text may hold a pre-tool call (cheap: no JSON read)."""
    return any(event in text for event in SHELL_TOOL_OF)


def shell_command(payload: Mapping[str, object]) -> str | None:
    """The shell command a pre-tool call asks to run, None for any other tool."""
    tool = SHELL_TOOL_OF.get(str(payload.get("hook_event_name")))
    tool_input = payload.get("tool_input")
    if tool is None or payload.get("tool_name") != tool or not isinstance(tool_input, dict):
        return None
    command = tool_input.get("command")
    return command if isinstance(command, str) else None


def _not_text(command: str) -> bool:
    try:
        command.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def guarded(command: str, patterns: Callable[[], Iterable[str]]) -> Refusal | None:
    """What refuses `command` under the patterns `patterns()` gives (None: it may run).
    Never raises: every failure, the policy's own included, is an `Unchecked` refusal."""
    try:
        if len(command) > MAX_COMMAND_CHARS:
            return Unchecked(command, f"a command of {len(command)} characters, over the"
                                      f" {MAX_COMMAND_CHARS} a check takes")
        if _not_text(command):
            return Unchecked(command, "the command is not valid text: a lone surrogate,"
                                      " or bytes not UTF-8")
        from workers.agents import command_policy  # only a shell command is checked

        return command_policy.check(command, patterns())
    except Exception as error:  # the command does not run
        return Unchecked(command, failure(error))


def session_patterns(home: Path, session: str) -> Callable[[], tuple[str, ...]]:
    """The patterns `session` was launched with, read when asked. What is not a regular
    file there (a FIFO would never answer) fails the check."""
    def read() -> tuple[str, ...]:
        import os
        import stat

        from workers.agents import agent_files, command_policy

        try:
            mode = os.stat(home / agent_files.AGENTS_DIR / session / command_policy.DENY).st_mode
        except FileNotFoundError:
            mode = stat.S_IFREG  # none kept: the policy's own default
        if not stat.S_ISREG(mode):
            raise OSError("the session's patterns file is not a regular file")
        return command_policy.stored(home, session)
    return read


def decide(command: str, home: Path | None, session: str,
           seconds: float = DECIDE_SECONDS) -> Refusal | None:
    """`guarded` under `session`'s patterns, given at most `seconds`: slower is an
    `Unchecked` refusal (the check goes on in a thread nobody waits for). A call no
    session made (no home or session named) is refused too."""
    if home is None or not session:
        return Unchecked(command, "the hook was not started by a bullpen session")
    import threading

    found: list[Refusal | None] = []
    worker = threading.Thread(
        target=lambda: found.append(guarded(command, session_patterns(home, session))),
        name="bullpen-pre-tool", daemon=True)
    worker.start()
    worker.join(seconds)
    if not found:
        return Unchecked(command, f"the check took over {seconds:g} s")
    return found[0]


def failure(error: BaseException) -> str:
    """One short line naming an unexpected failure."""
    text = " ".join(str(error).split())[:WHY_CHARS]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def audit_detail(refusal: Refusal, how: str) -> str:
    """The audit entry's detail for a refused command (`how`: "claude's hook" …)."""
    if isinstance(refusal, Unchecked):
        return f"could not be checked: {refusal.why} ({how})"
    return f"denied by pattern {refusal.pattern!r} ({how})"


def payload_of(text: str) -> dict | None:
    """The JSON object a hook read from its stdin, None when it holds none."""
    import json

    try:
        payload = json.loads(text)
    except ValueError:
        return None
    return payload if isinstance(payload, dict) else None
