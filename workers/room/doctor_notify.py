"""Doctor's and `up`'s word on `notify:`: Apprise installed, the URLs valid, the last
send to each receiver delivered. Receivers are named by their label, never the URL."""

from __future__ import annotations

import time
from pathlib import Path

from board.errors import BullpenError
from board.notify_config import INSTALL, KEY, check_urls, label, last_sends, read, require_apprise
from workers.room.findings import Finding

AREA = "notify"


def notify_findings(home: Path) -> list[Finding]:
    """Nothing without `notify:`; else whether it can send, and each receiver's last send."""
    try:
        settings = read(home)
        if settings is None:
            return []
        require_apprise()
        check_urls(settings)
    except BullpenError as error:
        return [Finding(AREA, False, str(error), INSTALL if "Apprise is not installed"
                        in str(error) else f"fix {KEY}: in .bullpen/local.yaml")]
    sends = last_sends(home)
    found = []
    for url in settings.urls:
        name = label(url)
        last = sends.get(name)
        if isinstance(last, dict) and last.get("ok") is False:
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(last.get("at", 0)))
            found.append(Finding(AREA, False, f"the last notification to {name} was not"
                                 f" delivered ({when}): {last.get('error')}",
                                 "check the receiver, then bullpen notify test"))
        else:
            found.append(Finding(AREA, True, f"notifications go to {name}"))
    return found


def up_warnings(home: Path) -> list[str]:
    """One line for `up` when `notify:` is set but nothing can be sent."""
    try:
        settings = read(home)
        if settings is not None:
            require_apprise()
    except BullpenError as error:
        return [f"notifications off: {error}"]
    return []
