"""`notify:` in the room's local config: where notifications go and which events.

Kept in `.bullpen/local.yaml` (never in bullpen.yaml: the URLs hold tokens and
passwords, and bullpen.yaml is committed):

    notify:
      urls: [ntfy://ntfy.sh/my-topic, "mailto://me:app-password@gmail.com"]
      events: [question, task_done, task_blocked, budget, landing, coordinator]

`urls` are Apprise URLs (`pip install 'bullpen[notify]'`); `events` defaults to all of
them. A bare list (`notify: [URL, ...]`) is the same with every event. Nothing here
ever prints a URL whole: `label` keeps the scheme and a host that is plainly a host.
"""

from __future__ import annotations

import json
import re
from enum import StrEnum
from pathlib import Path
from urllib.parse import urlsplit

from board.errors import BadInput, BullpenError
from board.records import record
from board.store import LOCAL_CONFIG, read_local

KEY = "notify"
INSTALL = "pip install 'bullpen[notify]'"
# Written by the coordinator's sender after each send: doctor reports the last failure.
STATE_FILE = "notify.json"
# `bullpen serve` keeps the page's address (without its login token) in this file of the
# room's home while it runs (workers/surfaces/web/access.py, URL_FILE): each notification
# ends with it then.
PAGE_URL_FILE = "web-url"


class NotifyEvent(StrEnum):
    """What may be told (the words of `events:`)."""

    QUESTION = "question"  # a session needs input: its question
    TASK_DONE = "task_done"
    TASK_BLOCKED = "task_blocked"
    BUDGET = "budget"  # a session reached its budget: its notes are held
    LANDING = "landing"  # a branch landed, or its landing failed
    COORDINATOR = "coordinator"  # the coordinator cannot write the store, or stopped


ALL_EVENTS = frozenset(NotifyEvent)


@record(frozen=True)
class NotifySettings:
    """The receivers (Apprise URLs) and the events to send them."""

    urls: tuple[str, ...]
    events: frozenset[NotifyEvent]


def read(home: Path) -> NotifySettings | None:
    """The room's `notify:` settings, None when there are none; BadInput when malformed
    (the message names the file and never shows a URL whole)."""
    raw = read_local(home).get(KEY)
    if raw is None:
        return None
    where = f"{home / LOCAL_CONFIG}: {KEY}"
    if isinstance(raw, list):
        raw = {"urls": raw}
    if not isinstance(raw, dict):
        raise BadInput(f"{where}: expected urls: [...] and events: [...]")
    unknown = set(raw) - {"urls", "events"}
    if unknown:
        raise BadInput(f"{where}: {', '.join(sorted(unknown))}: unknown key; use urls, events")
    urls = raw.get("urls")
    if isinstance(urls, str):
        urls = [urls]
    if not urls or not isinstance(urls, list) or not all(isinstance(u, str) for u in urls):
        raise BadInput(f"{where}: urls: expected one or more Apprise URLs")
    for url in urls:
        if "://" not in url:
            raise BadInput(f"{where}: urls: one is not a URL (scheme://...)")
    events = raw.get("events", sorted(ALL_EVENTS))
    if not isinstance(events, list) or not all(isinstance(e, str) for e in events):
        raise BadInput(f"{where}: events: expected a list of {', '.join(sorted(ALL_EVENTS))}")
    wrong = [e for e in events if e not in ALL_EVENTS]
    if wrong:
        raise BadInput(f"{where}: events: {wrong[0]!r} is not one of"
                       f" {', '.join(sorted(ALL_EVENTS))}")
    return NotifySettings(tuple(urls), frozenset(NotifyEvent(e) for e in events))


def require_apprise() -> None:
    """BullpenError (one line: how to install it) when Apprise is not installed."""
    try:
        import apprise  # noqa: F401
    except ImportError:
        raise BullpenError(f"{KEY}: is set in {LOCAL_CONFIG} but Apprise is not installed:"
                           f" {INSTALL}") from None


def check_urls(settings: NotifySettings) -> None:
    """BadInput naming the first URL Apprise does not know (needs Apprise)."""
    import apprise

    for url in settings.urls:
        if not apprise.Apprise().add(url):
            raise BadInput(f"{KEY}: {label(url)!r} is not a URL Apprise can send to"
                           " (see https://github.com/caronc/apprise/wiki)")


_HOSTLIKE = re.compile(r"^(localhost|[\w-]+(\.[\w-]+)+|\[[0-9a-fA-F:]+\])(:\d+)?$")


def label(url: str) -> str:
    """`url` with nothing secret in it: the scheme, the host when it is plainly a host
    (a dotted name, an IP, localhost; after `user:pass@`), never the user, password,
    path or query (tokens live there: `tgram://TOKEN/CHAT`, `slack://A/B/C`)."""
    scheme, _, rest = url.partition("://")
    try:
        netloc = urlsplit(f"x://{rest}").netloc
    except ValueError:
        netloc = ""
    hidden = "@" in netloc
    host = netloc.rpartition("@")[2]
    shown = host if _HOSTLIKE.match(host) else "***"
    tail = "/***" if urlsplit(f"x://{rest}").path.strip("/") or "?" in rest else ""
    return f"{scheme}://{'***@' if hidden else ''}{shown}{tail}"


def scrub(text: str, url: str) -> str:
    """`text` (a receiver's error) with every secret part of `url` replaced by ***."""
    _, _, rest = url.partition("://")
    secrets = {piece for piece in re.split(r"[/:@?&=#]+", rest) if len(piece) >= 4}
    shown = label(url)
    for piece in sorted(secrets, key=len, reverse=True):
        if piece not in shown:
            text = text.replace(piece, "***")
    return text.replace(url, shown)


def page_url(home: Path) -> str | None:
    """The web page's URL while `bullpen serve` runs (its file in the home), else None."""
    try:
        line = (home / PAGE_URL_FILE).read_text().strip().splitlines()
    except OSError:
        return None
    return line[0].strip() if line and line[0].strip() else None


def last_sends(home: Path) -> dict[str, dict]:
    """What the sender wrote after its last send to each receiver (by label)."""
    try:
        data = json.loads((home / STATE_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
