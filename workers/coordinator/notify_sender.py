"""Sending notifications off the coordinator's thread: one sender per receiver.

Each receiver (an Apprise URL) has its own thread and a bounded queue, so the
coordinator only ever puts a message in a queue (never waits on the network), and a
receiver that hangs or refuses holds back nobody else's messages, nor any note.
Messages are batched and paced: the first goes at once; what comes while one is sent,
or within `MIN_GAP` of the last send, goes in the next, one message per `MIN_GAP` at
most, with up to `PER_MESSAGE` lines each (the rest go in the next one: none is lost
unless `QUEUE_SIZE` wait).
After each send the outcome is written to `.bullpen/notify.json` (doctor reads it).
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import os
import queue
import threading
import time
from pathlib import Path

from board.notify_config import STATE_FILE, NotifyEvent, label, page_url, scrub
from board.records import record

log = logging.getLogger(__name__)

QUEUE_SIZE = 1000  # messages waiting for one receiver; past it they are counted, dropped
GATHER = 0.01  # seconds the first message waits for others that come with it (one batch
# of events the loop applied arrives within microseconds)
MIN_GAP = 1.0  # seconds between two messages to one receiver: the rest are batched
PER_MESSAGE = 25  # lines in one batched message (receivers cut long ones)
FLUSH = 2.0  # seconds a stopping coordinator gives its senders to send what is queued
_STOP = object()
_state_lock = threading.Lock()


@record(frozen=True)
class Message:
    """One thing to tell: its kind and its line ("alice asks: Deploy? (y/n)")."""

    kind: NotifyEvent
    text: str


TITLES = {NotifyEvent.QUESTION: "a question", NotifyEvent.TASK_DONE: "task done",
          NotifyEvent.TASK_BLOCKED: "task blocked", NotifyEvent.BUDGET: "budget reached",
          NotifyEvent.LANDING: "landing", NotifyEvent.COORDINATOR: "coordinator"}


def compose(room: str, batch: list[Message], page: str | None) -> tuple[str, str]:
    """The title and body that tell `batch`: one thing told per line, the page's link
    last."""
    tail = f"\n{page}" if page else ""
    if len(batch) == 1:
        return f"bullpen {room}: {TITLES[batch[0].kind]}", batch[0].text + tail
    kinds = sorted({TITLES[m.kind] for m in batch})
    return (f"bullpen {room}: {len(batch)} events ({', '.join(kinds)})",
            "\n".join(m.text for m in batch) + tail)


# What Apprise warned during one send: Apprise runs each send in its own executor, with
# the caller's context copied (so a context variable, not a thread-local, reaches it).
_said: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("said", default=None)


class _Warnings(logging.Handler):
    """Apprise says why a send failed only in its log: keep what it warns per send."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        said = _said.get()
        if said is not None:
            said.append(record.getMessage())


_warnings = _Warnings()


class Sender:
    """One receiver's queue and thread. `put` never blocks."""

    def __init__(self, home: Path, url: str) -> None:
        self.home, self.url, self.label = home, url, label(url)
        self.room = home.resolve().parent.name
        self.queue: queue.Queue = queue.Queue(maxsize=QUEUE_SIZE)
        self.dropped = 0
        self.sent = 0
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=f"notify {self.label}")
        self._thread.start()

    def put(self, message: Message) -> None:
        """Queue `message`; when the receiver is so far behind that its queue is full,
        the message is counted and dropped (the coordinator never waits)."""
        try:
            self.queue.put_nowait(message)
        except queue.Full:
            self.dropped += 1
            if self.dropped == 1 or self.dropped % 100 == 0:
                log.error("notify %s: %d message(s) dropped, the receiver is behind",
                          self.label, self.dropped)

    def finish(self) -> None:
        """Ask the thread to end once it has sent what is queued (never waits: with the
        queue full, the thread is a daemon and ends with the process)."""
        with contextlib.suppress(queue.Full):
            self.queue.put_nowait(_STOP)

    def wait(self, deadline: float) -> None:
        """Wait for the thread to end, until `deadline` (time.monotonic()) at most."""
        self._thread.join(max(0.0, deadline - time.monotonic()))

    def stop(self) -> None:
        """Send what is queued (for `FLUSH` seconds at most), then end the thread."""
        self.finish()
        self.wait(time.monotonic() + FLUSH)

    def _run(self) -> None:
        notifier = _apprise(self.url)
        last_sent = float("-inf")
        waiting: list[Message] = []  # the next message's lines (the last one's overflow)
        stopping = False
        while waiting or not stopping:
            if not waiting:
                first = self.queue.get()
                if first is _STOP:
                    return
                waiting.append(first)
            until = max(time.monotonic() + GATHER, last_sent + MIN_GAP)
            while not stopping and len(waiting) < PER_MESSAGE:
                left = until - time.monotonic()
                try:
                    item = self.queue.get(timeout=left) if left > 0 else self.queue.get_nowait()
                except queue.Empty:
                    break
                if item is _STOP:
                    stopping = True
                else:
                    waiting.append(item)
            if (left := until - time.monotonic()) > 0:
                time.sleep(left)  # this thread's own pace: one message per MIN_GAP
            batch, waiting = waiting[:PER_MESSAGE], waiting[PER_MESSAGE:]
            self._send(notifier, *compose(self.room, batch, page_url(self.home)))
            last_sent = time.monotonic()

    def _send(self, notifier, title: str, body: str) -> None:  # noqa: ANN001 - Apprise
        why = deliver(notifier, self.url, title, body)
        if why is None:
            self.sent += 1
        else:
            log.error("notify %s: not delivered: %s", self.label, why)
        write_state(self.home, self.label, why is None, why)


def deliver(notifier, url: str, title: str, body: str) -> str | None:  # noqa: ANN001
    """Send one message with `notifier` (Apprise, for `url`); None when delivered, else
    why not, with nothing secret of `url` in it. Never raises."""
    said: list[str] = []
    token = _said.set(said)
    try:
        ok = notifier is not None and bool(notifier.notify(title=title, body=body))
        why = (said[-1] if said else None) if notifier is not None \
            else "Apprise is not installed"
    except Exception as error:  # a sender never takes the coordinator down
        ok, why = False, f"{type(error).__name__}: {error}"
    finally:
        _said.reset(token)
    return None if ok else scrub(why or "the receiver refused or did not answer", url)


def send_now(home: Path, url: str, title: str, body: str) -> str | None:
    """Send one message to `url` on this thread (`bullpen notify test`), recording the
    outcome for doctor; None when delivered, else why not."""
    why = deliver(_apprise(url), url, title, body)
    write_state(home, label(url), why is None, why)
    return why


def _apprise(url: str):  # noqa: ANN202 - apprise.Apprise, imported here (it is slow)
    try:
        import apprise
    except ImportError:
        return None
    apprise_log = logging.getLogger("apprise")
    if _warnings not in apprise_log.handlers:
        apprise_log.addHandler(_warnings)
        apprise_log.propagate = False  # its own lines may carry URLs: ours are scrubbed
    notifier = apprise.Apprise()
    notifier.add(url)
    return notifier


def write_state(home: Path, name: str, ok: bool, error: str | None) -> None:
    """Record the last send to receiver `name` (its label): doctor reports a failure."""
    path = home / STATE_FILE
    with _state_lock:
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            data = {}
        data = data if isinstance(data, dict) else {}
        data[name] = {"ok": ok, "at": time.time(), "error": error}
        scratch = path.with_suffix(f".{os.getpid()}.tmp")
        try:
            scratch.write_text(json.dumps(data, indent=1))
            os.replace(scratch, path)
        except OSError as fault:
            log.error("notify: cannot write %s: %s", path, fault)
