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

from tui.dashboard.feed import StreamItem

STATUS_STYLES = {
    "working": "bold green",
    "idle": "cyan",
    "needs_input": "bold yellow",
    "starting": "blue",
    "exited": "red",
    "stopped": "dim",
}
KIND_STYLES = {
    "note": "bold",
    "handoff": "bold magenta",
    "alert": "bold red",
    "ping": "yellow",
    "system": "blue",
    "notebook": "green",
    "event": "dim",
}
DELIVERY_STYLES = {"pending": "bold yellow", "delivered": "green", "read": "dim green"}


def agent_label(agent: str | None, width: int = 18) -> str:
    """A short name for an agent command: its program (`hermes`, `claude`), the script
    of `python script.py`, or for `python -m pkg.mod ARGS` the module's last part and
    its arguments."""
    try:
        words = shlex.split(agent or "")
    except ValueError:
        words = (agent or "").split()
    if not words:
        return "-"
    program = PurePath(words[0]).name
    if program.startswith("python") and "-m" in words[1:-1]:
        module_at = words.index("-m") + 1
        label = " ".join([words[module_at].rsplit(".", 1)[-1], *words[module_at + 1:]])
    elif program.startswith("python") and len(words) > 1 and words[1].endswith(".py"):
        label = PurePath(words[1]).name
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


def one_line(text: str) -> str:
    """Collapse whitespace so a multi-line note fits one stream line."""
    return " ".join(text.split())


def stream_line(item: StreamItem) -> Text:
    """One stream line: time, who → whom, kind, text; private entries say so."""
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(clock(item.at)[:5] + " ", style="dim")
    line.append(item.who, style="bold cyan" if item.kind != "event" else "cyan")
    if item.to is not None:
        line.append(" → ")
        line.append("all" if item.to == "*" else item.to, style="cyan")
    style = KIND_STYLES.get(item.kind, "")
    if item.kind == "notebook":
        line.append(" ✎ notebook", style=style)
        if item.private:
            line.append(" [private]", style="bold reverse yellow")
    elif item.kind not in ("note", "event"):
        line.append(f" [{item.kind}]", style=style)
    if item.ref is not None and item.kind not in ("event", "notebook"):
        line.append(f" #{item.ref}", style="dim")
    line.append(": " if item.kind != "event" else " ", style="dim")
    line.append(one_line(item.text), style="dim" if item.kind == "event" else "")
    return line
