"""Typing a line into a pane: tmux buffer, bracketed paste, then a separate Enter.

The text travels on the tmux client's stdin (`load-buffer -`), never in its argv, and is
pasted with `-p` so an agent that asked for bracketed paste sees it as a paste, not as
keystrokes. Enter is a separate key press a moment later: prompt_toolkit (Hermes) and
other TUIs treat an Enter inside a paste as text, not as "submit".
"""

from __future__ import annotations

import secrets
import time
from pathlib import PurePath

from workers.tmux.sanitize import is_one_line
from workers.tmux.server import RoomServer

SHELLS = frozenset({"sh", "bash", "zsh", "fish", "dash", "ksh"})
ENTER_DELAY = 0.1  # seconds between the paste and the Enter (DESIGN.md: ~100 ms)


def is_shell(current_command: str) -> bool:
    """True when a pane's foreground command is a plain shell (`-bash`, `/bin/sh` too)."""
    name = PurePath(current_command.strip()).name.lstrip("-")
    return name in SHELLS


def type_line(server: RoomServer, pane_id: str, text: str, submit: bool = True,
              enter_delay: float = ENTER_DELAY) -> None:
    """Paste `text` into the pane and, if `submit`, press Enter `enter_delay` s later.

    `text` must already be one clean line (see `workers.sanitize.clean`); anything else
    raises ValueError rather than risk a control character or newline acting as a key.
    Raises `TmuxError` when the pane does not exist.
    """
    if not is_one_line(text):
        raise ValueError("type_line takes one clean line; pass it through sanitize.clean()")
    if not text and not submit:
        return
    if text:
        buffer = f"bullpen-{secrets.token_hex(6)}"
        # One tmux process: load from stdin, then paste and delete the buffer (-d).
        server.check("load-buffer", "-b", buffer, "-", ";",
                     "paste-buffer", "-p", "-d", "-b", buffer, "-t", pane_id,
                     stdin=text.encode())
    if submit:
        if text and enter_delay > 0:
            time.sleep(enter_delay)
        server.check("send-keys", "-t", pane_id, "Enter")
