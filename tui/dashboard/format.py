"""Turning store records into Rich text for the widgets (no clock: times are absolute)."""

from __future__ import annotations

import time

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
