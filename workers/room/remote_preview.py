"""The pane text of a session that runs on another machine: the capture its coordinator
stored (board.previews), saying where it runs and when it was taken."""

from __future__ import annotations

import time
from pathlib import Path

from board import previews, sessions
from board.room import open_operator_room
from workers.coordinator.presence import Presence


def remote_preview(home: Path, name: str) -> str | None:
    """The stored capture of `name` when it runs on another machine; None when it runs
    here (its own pane is read then)."""
    with open_operator_room(home) as room:
        session = sessions.require(room.conn, name)
        if Presence(home, room.conn).mine([session]):
            return None
        preview = previews.get(room.conn, name)
    if preview is None:
        return f"{name} runs on machine {session.machine}; no capture from it yet"
    taken = time.strftime("%H:%M:%S", time.localtime(preview.captured_at))
    return "\n".join([f"{name} runs on machine {session.machine} (capture {taken})",
                      *preview.lines])
