"""A tmux control-mode client (`tmux -C attach`): pane output as it happens, commands
without a process each.

tmux writes a line `%output %ID …` to a control client for every read from a pane of
the session it is attached to, and `%window-add`, `%layout-change`,
`%pane-mode-changed`, … when the panes change; a command written to its standard input
is answered between `%begin` and `%end` (or `%error`) lines; a subscription
(`refresh-client -B`) reports a pane that died. So the coordinator learns which panes
changed without capturing any, reads the screens of those only, and asks tmux for its
pane list without starting a tmux process (`workers.tmux.watch`).

The client attaches with `ignore-size`, so it never changes a window's size, and is
left out of `list-clients` by the snapshot's own filter (`#{client_control_mode}`).
"""

from __future__ import annotations

import subprocess
import threading
from collections import deque
from collections.abc import Sequence

from workers.tmux.server import RoomServer, TmuxError

# Only what a pane's death changes: tmux evaluates this for every pane each second, and
# #{pane_current_command} (a /proc read per pane) was most of that cost with 200 panes.
# Another program taking a pane in silence shows at the next pane-list read: every tick a
# note waits (so never typed into), else within watch.SAFETY_EVERY.
SUBSCRIBED = "#{pane_dead}#{pane_dead_status}#{pane_dead_signal}"
REPLY_TIMEOUT = 5.0  # seconds a command may take to be answered before the client is dropped


def quote(arg: str) -> str:
    """`arg` as one word of tmux's command language (single quotes take all but ')."""
    return "'" + arg.replace("'", "'\\''") + "'"


class ControlClient:
    """One control-mode client on `session` of `server`; `alive` until tmux ends it."""

    def __init__(self, server: RoomServer, session: str) -> None:
        self.session = session
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._dirty: set[str] = set()
        self._moved = True  # panes came, went or changed mode: the pane list is stale
        self._replies: deque[list[str] | None] = deque()  # answers not yet taken
        self._waiting = 0  # commands written and not yet answered
        self._process = subprocess.Popen(
            [*server.base_argv(), "-C", "attach-session", "-f", "ignore-size",
             "-t", f"={session}"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.alive = True
        self._attached = False
        self._reader = threading.Thread(target=self._read, name="tmux-control", daemon=True)
        self._reader.start()
        with self._lock:  # tmux answers the attach first; commands come after it
            if not self._changed.wait_for(lambda: self._attached or not self.alive,
                                          REPLY_TIMEOUT) or not self._attached:
                self._end_locked()
                raise TmuxError(f"no control client could attach to {session}")
        # tmux says nothing when a pane dies (remain-on-exit keeps it): a subscription,
        # checked by tmux each second, does.
        self.commands([["refresh-client", "-B", f"bullpen:%*:{SUBSCRIBED}"]])

    # -- what happened ---------------------------------------------------------------

    def take_changes(self) -> tuple[set[str], bool]:
        """(panes with output since the last call, whether the pane set or a pane's mode
        changed); both are reset."""
        with self._lock:
            dirty, moved = self._dirty, self._moved
            self._dirty, self._moved = set(), False
            return dirty, moved

    # -- commands --------------------------------------------------------------------

    def commands(self, lines: Sequence[Sequence[str]]) -> list[list[str] | None]:
        """Run each command (its words) and return each one's output lines (None when
        tmux answered with an error); all are written at once, then read in order."""
        if not lines:
            return []
        text = "".join(" ".join(quote(word) for word in line) + "\n" for line in lines)
        with self._lock:
            if not self.alive or self._process.stdin is None:
                raise TmuxError(f"the control client of {self.session} has ended")
            self._waiting += len(lines)
            try:
                self._process.stdin.write(text.encode())
                self._process.stdin.flush()
            except OSError as error:
                self.alive = False
                raise TmuxError(f"the control client of {self.session} ended: {error}") \
                    from None
            answers: list[list[str] | None] = []
            while len(answers) < len(lines):
                if not self._replies and not self._changed.wait_for(
                        lambda: bool(self._replies) or not self.alive, REPLY_TIMEOUT):
                    self._end_locked()
                if not self._replies:
                    raise TmuxError(f"the control client of {self.session} stopped answering")
                answers.append(self._replies.popleft())
            return answers

    def close(self) -> None:
        with self._lock:
            self._end_locked()
        self._process.wait(timeout=REPLY_TIMEOUT)

    def _end_locked(self) -> None:
        self.alive = False
        if self._process.poll() is None:
            self._process.kill()
        self._changed.notify_all()

    # -- the reader ------------------------------------------------------------------

    def _read(self) -> None:
        block: list[str] | None = None
        begun = ""  # the %begin line's time, number and flags, which its %end repeats
        stream = self._process.stdout
        assert stream is not None
        for raw in stream:
            line = raw.decode(errors="replace").rstrip("\r\n")
            if block is not None:
                if line in (f"%end {begun}", f"%error {begun}"):
                    self._answer(block if line.startswith("%end ") else None)
                    block = None
                else:
                    block.append(line)
            elif line.startswith("%begin "):
                block, begun = [], line.removeprefix("%begin ")
            elif line.startswith(("%output ", "%extended-output ")):
                pane = line.split(" ", 2)[1]
                with self._lock:
                    self._dirty.add(pane)
            elif line.startswith("%subscription-changed bullpen "):
                words = line.split(" ", 6)  # name, session, window, index, pane, then ": …"
                with self._lock:
                    self._dirty.add(words[5] if len(words) > 5 else "")
                    self._moved = True
            elif line.startswith("%pane-mode-changed "):
                with self._lock:
                    self._dirty.add(line.split(" ", 2)[1])
                    self._moved = True
            elif line.startswith("%exit"):
                break
            elif line.startswith("%"):  # a window or pane came, went, moved or resized
                with self._lock:
                    self._moved = True
        with self._lock:
            self.alive = False
            self._moved = True
            self._changed.notify_all()

    def _answer(self, lines: list[str] | None) -> None:
        with self._lock:
            if not self._attached:  # the attach itself is answered first
                self._attached = True
                self._changed.notify_all()
                return
            if self._waiting == 0:  # nobody asked
                return
            self._waiting -= 1
            self._replies.append(lines)
            self._changed.notify_all()
