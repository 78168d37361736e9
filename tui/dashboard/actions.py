"""What the dashboard asks of the sessions runtime (tmux, git), behind a small protocol.

Every method may block (a tmux or git subprocess), so the dashboard calls them only from
thread workers. Tests pass a fake that records calls; `bullpen dashboard` passes
`RuntimeActions`, which imports the runtime lazily so the dashboard starts (and the
board keeps working) even where the runtime or tmux is missing.

Hook for `bullpen up`: when the dashboard runs in the room's tmux server beside the
session panes, `RuntimeActions.focus` is what moves tmux focus to the session's pane —
`up` only has to start `bullpen dashboard` in its pane (or pass its own actions object
to `make_app`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from board.errors import BullpenError

if TYPE_CHECKING:  # the runtime is imported lazily (see RuntimeActions)
    from workers.room.answers import Question
    from workers.room.code_view import CodeFlow
    from workers.room.land import LandingPreview
    from workers.room.land_rules import RuleChange

# What a runtime verb may raise that the dashboard reports instead of dying on: bullpen's
# own errors (tmux's and git's derive from BullpenError) and the OS's (a worktree removed
# meanwhile).
RUNTIME_ERRORS: tuple[type[Exception], ...] = (BullpenError, OSError)


@runtime_checkable
class SessionActions(Protocol):
    """The session verbs the dashboard offers; each call may block."""

    def focus(self, name: str) -> None:
        """Move tmux focus to the session's pane."""

    def zoom(self, name: str) -> None:
        """Zoom (or unzoom) the session's pane."""

    def capture(self, name: str) -> str:
        """The visible text of the session's pane."""

    def spawn(self, name: str, agent: str | None = None, task: str | None = None,
              deliver: str | None = None) -> None:
        """Start a new session with its own worktree and pane."""

    def stop(self, name: str) -> None:
        """Stop the session (its worktree stays)."""

    def restart(self, name: str) -> None:
        """Stop and start the session again."""

    def rm(self, name: str) -> None:
        """Stop and forget the session, removing its worktree (its branch stays)."""

    def changed_files(self, name: str) -> int | None:
        """How many files differ in the session's worktree (None: unknown)."""

    def keep_coordinator(self) -> bool:
        """Start the room's coordinator again if it died; True when it had to."""

    def coordinator_state(self) -> str | None:
        """The running coordinator's trouble in one line, as `bullpen ls` prints it
        ("store not writable — …"); None when it is fine or none runs."""

    def show_attention(self, count: int) -> None:
        """Show "N need you" in the room's tmux status line (nothing when 0)."""

    def diff(self, name: str) -> str:
        """The session's change since its base: commits and uncommitted edits (a diff)."""

    def changed_paths(self, name: str) -> list[str]:
        """The files that differ in the session's worktree (uncommitted)."""

    def code_flows(self) -> dict[str, CodeFlow]:
        """Each session's code: ahead of the base, conflicts, landed or ready to land."""

    def landing_preview(self, name: str) -> LandingPreview:
        """What landing the session would do: base branch, strategy, check, its code."""

    def land(self, name: str, on_output: Callable[[str], None],
             accepted: tuple[RuleChange, ...] = ()) -> str:
        """Land the session's branch (the check's lines go to `on_output` as they come);
        the line saying what landed. `accepted`: the changes to the room's rules the
        operator said yes to. Raises a BullpenError saying why it was refused."""

    def questions(self) -> list[Question]:
        """What each session that needs input asks now, with its choices and ids."""

    def answer(self, name: str, choice: str, question_id: str) -> None:
        """Type `choice` into the session's question while it is still `question_id`
        (a BadInput says why it was refused: the question changed)."""


class RuntimeActions:
    """The room façade (`workers.room.control`), imported on first use so the dashboard
    starts, and the board keeps working, even where tmux is missing."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self._runtime: object | None = None

    def _room(self):  # noqa: ANN202 - the runtime's type lives in a package we import lazily
        if self._runtime is None:
            from workers.room.control import RoomControl

            self._runtime = RoomControl(self.home)
        return self._runtime

    def focus(self, name: str) -> None:
        self._room().focus(name)

    def zoom(self, name: str) -> None:
        self._room().zoom(name)

    def capture(self, name: str) -> str:
        return self._room().capture(name)

    def spawn(self, name: str, agent: str | None = None, task: str | None = None,
              deliver: str | None = None) -> None:
        self._room().spawn(name, agent=agent, task=task, deliver=deliver)

    def stop(self, name: str) -> None:
        self._room().stop(name)

    def restart(self, name: str) -> None:
        self._room().restart(name)

    def rm(self, name: str) -> None:
        self._room().rm(name)

    def changed_files(self, name: str) -> int | None:
        return self._room().changed_files(name)

    def keep_coordinator(self) -> bool:
        return self._room().keep_coordinator()

    def coordinator_state(self) -> str | None:
        return self._room().coordinator_state()

    def show_attention(self, count: int) -> None:
        self._room().show_attention(count)

    def diff(self, name: str) -> str:
        return self._room().diff(name)

    def changed_paths(self, name: str) -> list[str]:
        return self._room().changed_paths(name)

    def code_flows(self) -> dict[str, CodeFlow]:
        return self._room().code_flows()

    def landing_preview(self, name: str) -> LandingPreview:
        return self._room().landing_preview(name)

    def land(self, name: str, on_output: Callable[[str], None],
             accepted: tuple[RuleChange, ...] = ()) -> str:
        return self._room().land(name, on_output, accepted)

    def questions(self) -> list[Question]:
        return self._room().questions()

    def answer(self, name: str, choice: str, question_id: str) -> None:
        self._room().answer(name, choice, question_id)
