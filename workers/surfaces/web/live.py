"""The page's live updates: one thread waits for the store to change and reads the page.

It sleeps in the store's own wake-up (`board.wakeup`: inotify on the SQLite files,
LISTEN/NOTIFY on PostgreSQL) and reads again only when the events table moved past the
id it last saw, so a quiet room costs nothing and a busy one is read once per change.
While a session needs input it also looks again every `QUIET` seconds (a question on a
screen can change with no event). Every read blocks, so it runs here, never on the
event loop; the loop is handed each new state as JSON text.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading

from board import views, wakeup
from board.errors import BullpenError
from board.room import open_operator_room
from board.vocabulary import SessionStatus
from workers.room.control import RoomControl
from workers.surfaces.web.state import snapshot

log = logging.getLogger(__name__)
QUIET = 10.0  # seconds between looks while nothing changes and someone is asked
SETTLE = 0.15  # seconds a burst of commits is given to finish before the page is read


class Live:
    """The newest state as JSON text and its version; `wait_newer` awaits the next."""

    def __init__(self, control: RoomControl) -> None:
        self.control = control
        self.version, self.text = 0, ""
        self._changed: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = threading.Event()

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop, self._changed = loop, asyncio.Event()
        threading.Thread(target=self._watch, name="bullpen-web-live", daemon=True).start()

    def stop(self) -> None:
        self._stop.set()

    def _publish(self, text: str) -> None:  # on the event loop
        if text == self.text:
            return
        self.version, self.text = self.version + 1, text
        assert self._changed is not None
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def wait_newer(self, seen: int, timeout: float) -> bool:
        """True once the version is past `seen`; False after `timeout` seconds."""
        if self.version > seen:
            return True
        assert self._changed is not None
        try:
            await asyncio.wait_for(self._changed.wait(), timeout)
        except TimeoutError:
            return False
        return self.version > seen

    def read_now(self) -> None:
        """Read the page again soon (after an action; blocking: call it in a thread)."""
        self._read()

    def _read(self) -> dict | None:
        try:
            state = snapshot(self.control)
        except (BullpenError, OSError) as error:  # the room went away: say so on the page
            state = {"error": str(error)}
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._publish, json.dumps(state))
        return state

    def _watch(self) -> None:
        with open_operator_room(self.control.home) as room:
            conn = room.conn
            changes = wakeup.waiter(conn, directory=room.db_path.parent)
            try:
                last = views.last_event_id(conn)
                state = self._read()
                while not self._stop.is_set():
                    woke = changes.wait(QUIET)
                    now = views.last_event_id(conn)
                    if now > last or (not woke and _someone_asked(state)):
                        self._stop.wait(SETTLE)
                        last, state = views.last_event_id(conn), self._read()
            except Exception:  # noqa: BLE001 - the page says it, the server stays up
                log.exception("the web page's live updates stopped")
                if self._loop is not None:
                    self._loop.call_soon_threadsafe(
                        self._publish, json.dumps({"error": "live updates stopped"}))
            finally:
                changes.close()


def _someone_asked(state: dict | None) -> bool:
    return state is not None and any(row["status"] == SessionStatus.NEEDS_INPUT
                                     for row in state.get("sessions", ()))
