"""Turning store records into Rich text for the widgets.

Ages ("5m") count from `now()`, which tests pin to a fixed time so snapshots hold.
"""

from __future__ import annotations

import shlex
import textwrap
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import PurePath

from rich.text import Text

from board.attention import Delivery
from board.vocabulary import DeliveryState, NoteKind, SessionStatus
from tui.dashboard.feed import StreamItem, StreamKind

# Keyed by enum members, looked up by the stored strings (a StrEnum member is its string).
STATUS_STYLES: dict[str, str] = {
    SessionStatus.WORKING: "bold green",
    SessionStatus.IDLE: "cyan",
    SessionStatus.NEEDS_INPUT: "bold yellow",
    SessionStatus.STARTING: "blue",
    SessionStatus.EXITED: "red",
    SessionStatus.STOPPED: "dim",
    SessionStatus.WAITING: "magenta",  # past max_running: its agent starts when a slot frees
    SessionStatus.UNREACHABLE: "dim red",  # its machine stopped beating
}
KIND_STYLES: dict[str, str] = {
    NoteKind.NOTE: "bold",
    NoteKind.HANDOFF: "bold magenta",
    NoteKind.ALERT: "bold red",
    NoteKind.PING: "yellow",
    NoteKind.SYSTEM: "blue",
    StreamKind.NOTEBOOK: "green",
    StreamKind.EVENT: "dim",
}
DELIVERY_STYLES: dict[str, str] = {
    DeliveryState.QUEUED: "bold yellow", DeliveryState.HELD: "bold red",
    DeliveryState.CLAIMED: "yellow", DeliveryState.TYPED: "green",
    DeliveryState.HANDED: "green", DeliveryState.READ: "dim green"}


SHELLS = frozenset({"sh", "bash", "zsh", "fish", "dash", "ksh"})
INTERPRETERS = ("python", "node", "ruby", "perl", "deno", "bun")


def agent_label(agent: str | None, width: int = 10) -> str:
    """A short name for an agent command: its program (`hermes`, `claude`, `aider`),
    `shell` for a shell, `script` for an interpreter running a script or module."""
    try:
        words = shlex.split(agent or "")
    except ValueError:
        words = (agent or "").split()
    words = [word for word in words if "=" not in word or word.startswith("-")]  # VAR=1 …
    if words and PurePath(words[0]).name == "env":
        words = words[1:]
    if not words:
        return "-"
    program = PurePath(words[0]).name
    if program in SHELLS:
        label = "shell"
    elif program.startswith(INTERPRETERS):
        label = "script" if len(words) > 1 else program
    else:
        label = program
    return label if len(label) <= width else label[: width - 1] + "…"


now: Callable[[], float] = time.time  # the clock ages count from (tests pin it)


def age(timestamp: float | None) -> str:
    """How long ago, in the largest whole unit: 'now', '45s', '12m', '3h', '2d'."""
    if timestamp is None:
        return "-"
    seconds = max(now() - timestamp, 0)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return "now"


@lru_cache(maxsize=4096)
def wrap_title(title: str, width: int, lines: int) -> tuple[str, ...]:
    """`title` over at most `lines` lines of `width`, the last cut with '…' if needed."""
    if width <= 1:
        return (title[:width],)
    wrapped = textwrap.wrap(" ".join(title.split()), width) or [""]
    if len(wrapped) > lines:
        rest = " ".join(wrapped[lines - 1:])
        wrapped = [*wrapped[: lines - 1], rest[: width - 1] + "…"]
    return tuple(wrapped)


def clock(timestamp: float | None) -> str:
    """HH:MM:SS in local time, or '-'."""
    if timestamp is None:
        return "-"
    return time.strftime("%H:%M:%S", time.localtime(timestamp))


def status_text(status: str) -> Text:
    """A session status, coloured (needs_input reads 'needs input')."""
    return Text(status.replace("_", " "), style=STATUS_STYLES.get(status, ""))


def delivery_text(deliveries: tuple[Delivery, ...] | list[Delivery]) -> Text:
    """Where a note got: 'typed', 'held: capped', or for several recipients
    'read 2 · queued 1'."""
    if not deliveries:
        return Text("")
    if len(deliveries) == 1:
        only = deliveries[0]
        held_why = only.state == DeliveryState.HELD and only.reason
        word = f"held: {only.reason}" if held_why else only.state
        return Text(word, style=DELIVERY_STYLES.get(only.state, ""))
    counts: dict[str, int] = {}
    for delivery in deliveries:
        counts[delivery.state] = counts.get(delivery.state, 0) + 1
    text = Text()
    for index, (state, count) in enumerate(sorted(counts.items())):
        if index:
            text.append(" · ", style="dim")
        text.append(f"{state} {count}", style=DELIVERY_STYLES.get(state, ""))
    return text


def stream_lines(item: StreamItem, deliveries: tuple[Delivery, ...], width: int) -> list[Text]:
    """An item of the note stream on as many lines as it needs at `width`: a header
    (time, sender → recipient, kind, id, `re #N`, delivery state), then the body."""
    head = Text(no_wrap=True, overflow="ellipsis")
    head.append(clock(item.at)[:5] + " ", style="dim")
    if item.kind == StreamKind.EVENT:  # a system line: one line, dimmed
        head.append(item.who, style="cyan")
        head.append(" " + one_line(item.text), style="dim")
        return [head]
    head.append(item.who, style="bold cyan")
    if item.to is not None:
        head.append(" → ")
        head.append("all" if item.to == "*" else item.to, style="cyan")
    style = KIND_STYLES.get(item.kind, "")
    if item.kind == StreamKind.NOTEBOOK:
        head.append(" ✎ notebook", style=style)
        if item.private:
            head.append(" [private]", style="bold reverse yellow")
    else:
        if item.ref is not None:
            head.append(f" #{item.ref}", style="bold")
        if item.kind != NoteKind.NOTE:
            head.append(f" {item.kind}", style=style)
        if item.reply_to is not None:
            head.append(f" re #{item.reply_to}", style="italic")
        if deliveries:
            head.append(" · ", style="dim")
            head.append_text(delivery_text(deliveries))
    body = Text(item.text.strip(), style="")
    lines = [head]
    for part in body.wrap(_console(), max(width - 2, 1)):
        part.pad_left(2)
        lines.append(part)
    return lines


@lru_cache(maxsize=1)
def _console():  # noqa: ANN202 - a Rich console only used to measure text
    from rich.console import Console

    return Console(width=200, color_system=None)


def one_line(text: str) -> str:
    """Collapse whitespace so a multi-line note fits one stream line."""
    return " ".join(text.split())
