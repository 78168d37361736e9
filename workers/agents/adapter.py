"""The adapter protocol: what bullpen knows about one kind of agent.

An adapter reads the agent's screen (is its own empty input prompt in front? a question?
a spinner?), says which hooks the agent has, and how a note reaches it. Each kind has
one folder in `workers.agents` (`claude/`, `hermes/` …); `workers.agents.kinds.adapter_for`
picks one from the agent command. Adapters are stateless: the coordinator's state tracker keeps
time, stillness and hook reports, and asks the adapter only "what is on this screen?".
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from board.vocabulary import SessionStatus


class AgentKind(StrEnum):
    """The kinds of agent bullpen tells apart (chosen from the agent command)."""

    HERMES = "hermes"
    CLAUDE = "claude"
    CODEX = "codex"
    AIDER = "aider"
    SHELL = "shell"
    GENERIC = "generic"


# What a session is doing, from evidence: one vocabulary with the store and `ls`.
AgentState = SessionStatus


class Sign(StrEnum):
    """What an adapter recognises on one screen."""

    PROMPT_EMPTY = "prompt_empty"  # the agent's own input prompt, nothing typed in it
    PROMPT_TEXT = "prompt_text"  # its prompt, holding text (the human's, or a paste)
    QUESTION = "question"  # a dialog or question waiting for an answer
    BUSY = "busy"  # a spinner, "esc to interrupt", a running turn
    NOTHING = "nothing"  # none of the above


class Route(StrEnum):
    """How notes reach an agent of a kind."""

    TYPE = "type"  # typed into its own empty prompt (hooks may pull them first)
    ANNOUNCE = "announce"  # never typed: kept in the inbox, announced on the status line


@dataclass(frozen=True)
class Screen:
    """The visible screen of a pane: every line (right-stripped) and the cursor.

    `alternate` is tmux's `alternate_on` (pagers, editors and full-screen programs use
    the alternate screen); `in_mode` is copy mode, where keys do not reach the program.
    """

    lines: tuple[str, ...]
    cursor_x: int = 0
    cursor_y: int = 0
    alternate: bool = False
    in_mode: bool = False

    @property
    def cursor_line(self) -> str:
        """The line the cursor is on ("" when the cursor is below the captured lines)."""
        if 0 <= self.cursor_y < len(self.lines):
            return self.lines[self.cursor_y]
        return ""

    @classmethod
    def from_text(cls, text: str, cursor: tuple[int, int] | None = None,
                  alternate: bool = False) -> Screen:
        """A screen from captured text; the cursor defaults to the end of the last line."""
        lines = tuple(line.rstrip() for line in text.split("\n"))
        while len(lines) > 1 and not lines[-1]:
            lines = lines[:-1]
        if cursor is None:
            cursor = (len(lines[-1]) if lines else 0, max(len(lines) - 1, 0))
        return cls(lines, cursor[0], cursor[1], alternate)


@dataclass(frozen=True)
class Reading:
    """One screen as an adapter reads it; `detail` is the question line, or the text
    found in the input line, or what showed the agent busy."""

    sign: Sign
    detail: str | None = None


class Adapter:
    """One kind of agent. Subclasses set the class attributes and override `read`."""

    kind: AgentKind = AgentKind.GENERIC
    programs: frozenset[str] = frozenset()  # foreground process names that are the agent
    route: Route = Route.TYPE
    has_hooks: bool = False  # a turn-boundary hook pulls pending notes into its next turn
    uses_alternate_screen: bool = False  # full-screen TUI: the alternate screen is its own
    opted_in: bool = True  # generic agents: typed text only with `deliver: type`

    def read(self, screen: Screen) -> Reading:
        """What is on `screen`: the agent's own prompt (empty or not), a question, a
        spinner, or nothing recognised."""
        raise NotImplementedError

    def busy_line(self, text: str) -> str | None:
        """What to type while the agent is busy so that it is queued, not an interrupt;
        None means "wait for the prompt" (the default, and the safe choice)."""
        return None

    def input_text(self, screen: Screen) -> str | None:
        """The text in the agent's input line ("" when empty), None if no prompt is seen."""
        reading = self.read(screen)
        if reading.sign == Sign.PROMPT_EMPTY:
            return ""
        if reading.sign == Sign.PROMPT_TEXT:
            return reading.detail or ""
        return None
