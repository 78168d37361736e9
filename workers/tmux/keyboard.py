"""Typing a line into a pane: tmux buffer, bracketed paste, then a separate Enter; and
showing a message on a pane's status line that no program can receive as input.

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
from workers.tmux.server import WAITING_OPTION, RoomServer

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


def paste(server: RoomServer, pane_id: str, text: str) -> None:
    """Paste one clean line into the pane (bracketed), without pressing Enter."""
    type_line(server, pane_id, text, submit=False)


def press_enter(server: RoomServer, pane_id: str) -> None:
    """Press Enter in the pane (a separate key, never part of a paste)."""
    server.check("send-keys", "-t", pane_id, "Enter")


MENU_KEYS = frozenset({"Up", "Down", "Enter"})  # all an answer to a menu may press


def press_keys(server: RoomServer, pane_id: str, keys: tuple[str, ...]) -> None:
    """Press named keys in the pane, in one tmux call; only `MENU_KEYS`, so no text
    (and no key an agent would read as a command) can travel this way."""
    unknown = set(keys) - MENU_KEYS
    if unknown:
        raise ValueError(f"press_keys takes only {sorted(MENU_KEYS)}, not {sorted(unknown)}")
    if keys:
        server.check("send-keys", "-t", pane_id, *keys)


def announce(server: RoomServer, pane_id: str, text: str, seconds: float = 8.0) -> None:
    """Show `text` on the status line of clients viewing the pane, and keep it in the
    pane's `@bullpen_waiting` option (for status-line formats). Nothing reaches the
    program in the pane: this is how a shell session is told a note waits."""
    # `display-message` expands formats: a `#` in note text must not be one.
    shown = text.replace("#", "##")
    server.check("set-option", "-p", "-t", pane_id, WAITING_OPTION, text, ";",
                 "display-message", "-d", str(int(seconds * 1000)), "-t", pane_id, shown)


def clear_announcement(server: RoomServer, pane_id: str) -> None:
    """Take the pane's `@bullpen_waiting` mark away (its notes were read)."""
    server.check("set-option", "-p", "-u", "-t", pane_id, WAITING_OPTION)


def screen_now(server: RoomServer, pane_id: str, joined: bool = False) -> tuple[str, int, int]:
    """The pane's visible text and its cursor (x, y), in one tmux call; `joined` joins
    wrapped lines (the cursor's row then no longer maps to a line)."""
    capture = ["capture-pane", "-p", *(["-J"] if joined else []), "-t", pane_id]
    out = server.check("display-message", "-p", "-t", pane_id, "#{cursor_x} #{cursor_y}",
                       ";", *capture)
    first, _, text = out.partition("\n")
    x, _, y = first.partition(" ")
    return text, int(x or 0), int(y or 0)


def history(server: RoomServer, pane_id: str) -> str:
    """Everything the pane holds: its scrollback and its screen, wrapped lines joined."""
    return server.check("capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", pane_id)
