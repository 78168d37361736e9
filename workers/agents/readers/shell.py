"""Shells (bash, zsh, fish, dash, sh, ksh, …): never typed into, whatever is on screen.

A shell runs what it is given — `$(…)` in a note, a quote left open, a pager's `q` — so
its notes stay in the inbox and are announced on tmux's status line instead. The reader
still tells the shell's own prompt from a question (sudo, ssh, `[yN]`) for `ls` and the
dashboard: a question waiting for an answer keeps the cursor on its own line.
"""

from __future__ import annotations

from board.patterns import lazy
from workers.agents.adapter import Adapter, AgentKind, Reading, Route, Screen, Sign
from workers.agents.readers.questions import asks

SHELL_PROGRAMS = frozenset({"sh", "bash", "zsh", "fish", "dash", "ksh", "mksh", "rbash",
                            "tcsh", "csh", "ash", "busybox", "yash", "nu", "elvish", "xonsh"})
# A prompt ends in one of these and a space: `$ `, `# `, `% `, `> `, `❯ `.
_PROMPT_END = lazy(r"[$#%>❯»]\s?$")


class ShellAdapter(Adapter):
    kind = AgentKind.SHELL
    programs = SHELL_PROGRAMS
    route = Route.ANNOUNCE
    line_oriented = True

    def read(self, screen: Screen) -> Reading:
        line = screen.cursor_line
        before = line[: screen.cursor_x]
        if asks(line):
            return Reading(Sign.QUESTION, line.strip())
        if _PROMPT_END.search(before) and not line[screen.cursor_x:].strip():
            return Reading(Sign.PROMPT_EMPTY)
        return Reading(Sign.NOTHING)
