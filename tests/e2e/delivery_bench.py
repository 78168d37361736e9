"""A delivery test bench: a real SQLite room, a private tmux server, the real
coordinator loop in a thread, and helpers to start panes and watch notes' states."""

from __future__ import annotations

import json
import os
import shlex
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from board import deliveries, notes, sessions
from board.deliveries import Delivery
from board.models import Note, Session
from board.room import Room
from tests.waiting import wait_until
from workers.coordinator.loop import Coordinator
from workers.tmux.server import RoomServer

STANDIN = Path(__file__).resolve().parents[1] / "agents" / "standin_tui.py"
DEBOUNCE = 0.5  # the coordinator's stillness debounce here (1.5 s in a room)


@dataclass
class Bench:
    room: Room
    server: RoomServer
    tmp: Path
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start_coordinator(self) -> None:
        def run() -> None:  # its sqlite connection must be made in its own thread
            Coordinator(self.room.home, server=self.server, idle_after=DEBOUNCE,
                        watch=False).run(self._stop)
        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)

    def start(self, name: str, command: str, deliver: str | None = None) -> str:
        """A running session `name` whose pane runs `command` (exec'd, as `up` does)."""
        sessions.register(self.room.conn, name, agent=command)
        pane = self.server.launch("bench", f"exec {command}", self.tmp, {}, name,
                                  new_window=True)
        sessions.update(self.room.conn, name, pane_id=pane, desired="running",
                        deliver=deliver)
        return pane

    def standin(self, name: str, look: str, steps: str) -> tuple[str, Path]:
        """A stand-in named like the real agent (`claude`, `hermes`), so its adapter is
        chosen from the command exactly as for the real one; returns (pane, log)."""
        bin_dir = self.tmp / "bin"
        bin_dir.mkdir(exist_ok=True)
        program = bin_dir / look
        if not program.exists():
            program.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)}"
                               f" {shlex.quote(str(STANDIN))} \"$@\"\n")
            program.chmod(0o755)
        log = self.tmp / f"{name}.jsonl"
        command = shlex.join([str(program), "--look", look, "--log", str(log),
                              "--steps", steps])
        return self.start(name, command), log

    def send(self, to: str, text: str, sender: str = "operator") -> Note:
        return notes.send(self.room.conn, sender, to, text)

    def delivery(self, note: Note, recipient: str) -> Delivery:
        return next(d for d in deliveries.of_note(self.room.conn, note.id)
                    if d.recipient == recipient)

    def session(self, name: str) -> Session:
        session = sessions.get(self.room.conn, name)
        assert session is not None
        return session

    def wait_held(self, note: Note, recipient: str, reason: str, timeout: float = 10) -> None:
        wait_until(lambda: (d := self.delivery(note, recipient)).state == "held"
                   and d.held_reason == reason, timeout,
                   message=lambda: f"note {note.id} held ({reason}):"
                                   f" {self.delivery(note, recipient)}")

    def wait_status(self, name: str, status: str, timeout: float = 10) -> Session:
        def shown() -> str:
            session = self.session(name)
            screen = self.server.capture(session.pane) if session.pane else ""
            return f"{name} {status}: {session}\nits screen:\n{screen}"
        return wait_until(lambda: (s := self.session(name)).status == status and s, timeout,
                          message=shown)

    def wait_typed(self, note: Note, recipient: str, timeout: float = 10) -> None:
        wait_until(lambda: self.delivery(note, recipient).state == "typed", timeout,
                   message=lambda: f"note {note.id} typed: {self.delivery(note, recipient)}")

    def screen(self, pane: str) -> str:
        return self.server.capture(pane)

    def waiting_mark(self, pane: str) -> str:
        """The pane's `@bullpen_waiting` announcement ("" until there is one)."""
        done = self.server.run("show-options", "-p", "-v", "-t", pane, "@bullpen_waiting")
        return done.stdout.decode(errors="replace") if done.returncode == 0 else ""

    def keys(self, pane: str, *keys: str, literal: bool = False) -> None:
        self.server.check("send-keys", "-t", pane, *(["-l"] if literal else []), *keys)


def log_rows(log: Path) -> list[dict]:
    """The rows a scripted agent or stand-in logged (what reached its input)."""
    if not log.exists():
        return []
    return [json.loads(row) for row in log.read_text().splitlines() if row]


def received(log: Path, note: Note) -> list[dict]:
    """The logged lines that hold `note`'s header."""
    needle = f"#{note.id} from {note.sender}"
    return [row for row in log_rows(log) if needle in str(row.get("line", ""))]


def env_without_rc() -> dict[str, str]:
    return {**os.environ, "ENV": ""}
